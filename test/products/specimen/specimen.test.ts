/**
 * The guide proven (docs/adding-a-product.md): `specimen`, a test-only product served by the test build
 * (test/fixtures/products/specimen/), was added by the guide's steps alone. Each surface the guide promises is asked
 * for it here, with its status, billing and envelope, so a step the surfaces stop honouring fails this file.
 */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { SpecimenResult } from "../../fixtures/products/specimen/result";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";
import {
  admin,
  anotherKey,
  BASE,
  bearer,
  call,
  createAccount,
  accountObject,
  json,
  type TestAccount,
} from "../../helpers";
import { connect } from "../../mcp-client";
import { installRoots } from "./contract-samples";
import { ledgerCharges } from "../../contract/helpers";

beforeAll(installRoots);

const keyed = (key: string) => ({ Authorization: `Bearer ${key}` });
const check = (key: string, word: unknown) => call<SpecimenResult>("/api/v1/specimen", json({ word }, keyed(key)));
const balance = async (acct: TestAccount) => (await accountObject(acct.accountId).snapshot()).pack_credits;

describe("its lookups (step 1 and its declarations)", () => {
  it("POST /specimen bills a known word 1 credit, its repeat nothing, unknown or malformed nothing", async () => {
    const acct = await createAccount({ pack: 2 });
    const known = await check(acct.key, "oak-leaf");
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({
      success: true,
      data: { word: "oak-leaf", root: "oak", known: true, meaning: "a tree", reason: null },
      meta: { credits_used: 1, credits_remaining: 1, cache_hit: false },
    });
    expect(known.body.data.sources).toEqual([{ dataset: "specimen-roots", version: "2026-11-29", coverage: "full" }]);
    expect(known.body.meta.request_id).toMatch(/^req_/);
    const repeat = await check(await anotherKey(acct), "OAK-LEAF");
    expect([repeat.body.meta.credits_used, repeat.body.meta.cache_hit]).toEqual([0, true]);
    const unknown = await check(acct.key, "nothing-here");
    expect([unknown.body.data.reason, unknown.body.meta.credits_used]).toEqual(["not_found", 0]);
    const malformed = await check(await anotherKey(acct), "no_good");
    expect([malformed.body.data.reason, malformed.body.meta.credits_used]).toEqual(["malformed", 0]);
    expect(await balance(acct)).toBe(1);
  });

  it("asks the partner for a root the dataset lacks: cited beside it, billed if it knows, free if down", async () => {
    const acct = await createAccount({ pack: 2 });
    const told = await check(acct.key, "oracle-x");
    expect([told.body.data.known, told.body.data.meaning, told.body.meta.credits_used]).toEqual([
      true,
      "told by the oracle: oracle",
      1,
    ]);
    expect(told.body.data.sources.map((s) => [s.dataset, s.coverage])).toEqual([
      ["specimen-roots", "full"],
      ["specimen-oracle", "full"],
    ]);
    const down = await check(await anotherKey(acct), "failing-x");
    expect([down.body.data.reason, down.body.meta.credits_used]).toEqual(["not_found", 0]);
    expect(down.body.data.sources.map((s) => [s.dataset, s.coverage])).toEqual([
      ["specimen-roots", "full"],
      ["specimen-oracle", "none"],
    ]);
    expect(await balance(acct)).toBe(1);
  });

  it("refuses a bad body 422 and a key without the product's scope 403, both free", async () => {
    const acct = await createAccount({ pack: 1, key: { scopes: ["email"] } });
    const unscoped = await check(acct.key, "oak-scope");
    expect([unscoped.status, unscoped.body.error?.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
    const scoped = await createAccount({ pack: 1 });
    const tooLong = await check(scoped.key, "x".repeat(65));
    expect([tooLong.status, tooLong.body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect([await balance(acct), await balance(scoped)]).toEqual([1, 1]);
  });

  it("POST /specimen/batch walks the words in order as one request", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await call<{ results: { data: SpecimenResult; meta: { credits_used: number } }[] }>(
      "/api/v1/specimen/batch",
      json({ words: ["elm-a", "nothing-b", "test-known"] }, keyed(acct.key)),
    );
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.data.word, r.data.known, r.meta.credits_used])).toEqual([
      ["elm-a", true, 1],
      ["nothing-b", false, 0],
      ["test-known", true, 0],
    ]);
    expect(body.meta).toMatchObject({ credits_used: 1, requested: 3, processed: 3, stopped_reason: null });
  });

  it("POST /specimen/public answers a publishable key's page without meta and bills its account", async () => {
    const acct = await createAccount({ pack: 1 });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
    });
    const page = { Origin: "https://shop.example", "CF-Connecting-IP": "198.51.100.70" };
    const answer = await call<SpecimenResult>("/api/v1/specimen/public", json({ key, word: "oak-x" }, page));
    expect([answer.status, answer.body.data.known, "meta" in answer.body]).toEqual([200, true, false]);
    expect(answer.response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const foreign = { ...page, Origin: "https://evil.example" };
    const refused = await call("/api/v1/specimen/public", json({ key, word: "oak-y" }, foreign));
    expect([refused.status, refused.body.error?.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    expect(await balance(acct)).toBe(0);
  });
});

/**
 * Our failure after the walk (the route's follow-up throws, FAILS_AFTER in the fixture's declarations), once the
 * settlement was deferred past the answer: the answer is SERVER_ERROR, so the hold is released, never settled.
 */
describe("a failure after the lookup charges nothing (release on failure)", () => {
  /** The account once its deferred work has run: nothing reserved, and the charges its ledger holds. */
  async function settledState({ accountId }: { accountId: string }) {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const snapshot = await accountObject(accountId).snapshot();
      if (snapshot.reserved === 0 || Date.now() > deadline) {
        const charges = await ledgerCharges(accountId, () => true);
        return { pack: snapshot.pack_credits, reserved: snapshot.reserved, charges: charges.rows };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("POST /specimen answers 500 SERVER_ERROR with a request id; no charge row, the hold released", async () => {
    const acct = await createAccount({ pack: 2 });
    const failed = await check(acct.key, "oak-rest-fails-after");
    expect([failed.status, failed.body.error?.code]).toEqual([500, "SERVER_ERROR"]);
    expect(failed.body.error?.request_id).toMatch(/^req_/);
    expect(failed.response.headers.get("X-Request-Id")).toBe(failed.body.error?.request_id);
    expect(await settledState(acct)).toEqual({ pack: 2, reserved: 0, charges: 0 });
    // Nothing of it was remembered either: the same word is answered fresh and charged once.
    const again = await check(acct.key, "oak-rest");
    expect([again.status, again.body.meta.credits_used, again.body.meta.cache_hit]).toEqual([200, 1, false]);
  });

  it("the check_specimen tool answers a SERVER_ERROR tool error and charges nothing", async () => {
    const acct = await createAccount({ pack: 2 });
    const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
    const { tool, close } = await connect(BASE, acct.key, workerFetch, { paceMs: 250 });
    const failed = await tool("check_specimen", { word: "oak-tool-fails-after" });
    expect([failed.isError, failed.error.code]).toEqual([true, "SERVER_ERROR"]);
    expect(failed.error.request_id).toMatch(/^req_/);
    // A later call of the same /mcp session still settles its own answer.
    const answered = await tool<SpecimenResult>("check_specimen", { word: "elm-tool-after" });
    expect([answered.isError, answered.meta.credits_used]).toEqual([false, 1]);
    await close();
    expect(await settledState(acct)).toEqual({ pack: 1, reserved: 0, charges: 1 });
  });

  it("the dashboard's try-it form answers SERVER_ERROR and charges the pasted key's account nothing", async () => {
    const { browser, email } = await signedUpOwner("try-specimen-fails");
    const owner = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: string }>();
    const acct = { accountId: owner!.id };
    await admin("POST", `/accounts/${acct.accountId}/credits`, { bucket: "pack", amount: 2 });
    const before = await accountObject(acct.accountId).snapshot();
    const key = await createSecretKey(browser, { scopes: ["account", "specimen"] });
    const ran = await browser.submit("/dashboard/try", "/dashboard/try/specimen", {
      key,
      body: '{"word":"oak-try-fails-after"}',
    });
    expect(ran.status).toBe(500);
    expect(await ran.text()).toContain("SERVER_ERROR");
    expect(await settledState(acct)).toEqual({ pack: before.pack_credits, reserved: 0, charges: 0 });
    expect((await accountObject(acct.accountId).snapshot()).plan_credits).toBe(before.plan_credits);
  });
});

describe("its tool, document, llms.txt, try-it form, operator route and status (what the registry serves)", () => {
  it("the check_specimen tool answers like the REST route, billed the same", async () => {
    const acct = await createAccount({ pack: 1 });
    const workerFetch: typeof fetch = (input, init) => SELF.fetch(input instanceof URL ? input.href : input, init);
    const { tool, close } = await connect(BASE, acct.key, workerFetch, { paceMs: 250 });
    const answer = await tool<SpecimenResult>("check_specimen", { word: "elm-tool" });
    expect([answer.isError, answer.data.known, answer.meta.credits_used]).toEqual([false, true, 1]);
    const refused = await tool("check_specimen", { word: 7 });
    expect([refused.isError, refused.error.code]).toEqual([true, "VALIDATION_FAILED"]);
    await close();
    expect(await balance(acct)).toBe(0);
  });

  it("the OpenAPI document lists its tag and three operations by their ids, with its example", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/api/v1/openapi.json`)).json()) as {
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    expect(doc.tags.find((t) => t.name === "Specimen")?.description).toContain("Specimen words");
    const ops = ["", "/batch", "/public"].map((p) => doc.paths[`/api/v1/specimen${p}`]?.post?.operationId);
    expect(ops).toEqual(["checkSpecimen", "checkSpecimens", "checkSpecimenPublic"]);
    const post = doc.paths["/api/v1/specimen"]!.post as unknown as {
      requestBody: { content: Record<string, unknown> };
    };
    expect(JSON.stringify(post.requestBody.content["application/json"])).toContain("test-known");
  });

  it("/llms.txt names its subject, its test value and its tool", async () => {
    const text = await (await SELF.fetch(`${BASE}/llms.txt`)).text();
    expect(text).toContain("specimen words");
    expect(text).toContain("`test-known`");
    expect(text).toContain("`check_specimen`");
  });

  it("the dashboard's try-it form starts from its example and runs it as the API request", async () => {
    const { browser } = await signedUpOwner("try-specimen");
    const html = await (await browser.fetch("/dashboard/try")).text();
    expect(html).toContain('action="/dashboard/try/specimen#try-specimen"');
    const key = await createSecretKey(browser, { scopes: ["account", "specimen"] });
    const ran = await browser.submit("/dashboard/try", "/dashboard/try/specimen", {
      key,
      body: '{"word":"test-known"}',
    });
    expect(ran.status).toBe(200);
    const page = await ran.text();
    expect(page).toContain('data-status="200"');
    expect(page).toContain("0 credit(s) used");
  });

  it("its operator route installs its dataset, which GET /status/data then lists", async () => {
    const acct = await createAccount({ pack: 0 });
    const { body } = await call<{ datasets: { name: string; version: string }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    expect(body.data.datasets).toContainEqual(
      expect.objectContaining({ name: "specimen-roots", version: "2026-11-29" }),
    );
    const refused = await SELF.fetch(`${BASE}/admin/v1/specimen-roots`, { method: "PUT", body: "{}" });
    expect(refused.status).toBe(401);
  });
});
