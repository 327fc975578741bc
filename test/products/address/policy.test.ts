/**
 * The address sending policy over HTTP (docs/address.md, "Sending policy"): its rules and the decision on single,
 * batch, browser, sandbox and bulk answers, repeats judged by the policy as it stands, and billing unchanged by it.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

type Decision = { action: string; rules_hit: string[] } | null;
type Answer = { verification: string; country: string; policy: Decision };
type Item = { data: Answer; meta: { credits_used: number; cache_hit: boolean; suppressed: boolean } };

const put = (key: string, rules: unknown) =>
  call<{ policy: { rules: Record<string, unknown>; created_at: string; updated_at: string } | null }>(
    "/api/v1/address/policy",
    json(rules, { Authorization: `Bearer ${key}` }, "PUT"),
  );
const get = (key: string) => call<{ policy: unknown }>("/api/v1/address/policy", bearer(key));
const remove = (key: string) =>
  call<{ deleted: boolean }>("/api/v1/address/policy", { method: "DELETE", ...bearer(key) });
const lookup = (key: string, address: unknown, country?: string) =>
  call<Answer>("/api/v1/address", json({ address, country }, { Authorization: `Bearer ${key}` }));
const batch = (key: string, addresses: unknown[]) =>
  call<{ results: Item[] }>("/api/v1/address/batch", json({ addresses }, { Authorization: `Bearer ${key}` }));

const test = (line1: string) => ({ line1, country: "ZZ" });
const SPRINGFIELD = { line1: "1 Main St", locality: "Springfield", region: "IL", postcode: "62701", country: "US" };
const ROMA = { line1: "Via Roma 1", locality: "Roma", postcode: "00184", country: "IT" };
const LONDON = { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" };

/** Keys of one account taken in turn: each key allows 5 requests a second. */
async function keys(acct: TestAccount, n = 3) {
  const pool = [acct.key, ...(await Promise.all(Array.from({ length: n - 1 }, () => anotherKey(acct))))];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

describe("GET, PUT, DELETE /api/v1/address/policy", () => {
  it("starts with no policy: GET answers policy null and answers carry policy: null", async () => {
    const acct = await createAccount();
    const { status, body } = await get(acct.key);
    expect([status, body.data]).toEqual([200, { policy: null }]);
    expect((await lookup(acct.key, test("verified"))).body.data.policy).toBeNull();
  });

  it("stores the rules (countries upper case, UK as GB) and decides each test address by them, free", async () => {
    const acct = await createAccount();
    const key = await keys(acct);
    const rules = {
      verification: { invalid: "block", format_only: "review" },
      risk_level: { high: "block" },
      reasons: { locality_mismatch: "review" },
      po_box: "review",
      corrections: "review",
      blocked_countries: ["uk"],
    };
    const saved = await put(key(), rules);
    expect(saved.status).toBe(200);
    expect(saved.body.data.policy!.rules).toEqual({ ...rules, blocked_countries: ["GB"] });
    expect((await get(key())).body.data.policy).toEqual(saved.body.data.policy);

    const { body } = await batch(
      key(),
      ["verified", "format-only", "invalid-postcode", "locality-mismatch", "po-box"].map(test),
    );
    expect(body.data.results.map((r) => r.data.policy)).toEqual([
      { action: "send", rules_hit: [] },
      { action: "review", rules_hit: ["verification.format_only"] },
      { action: "block", rules_hit: ["verification.invalid", "risk_level.high"] },
      { action: "block", rules_hit: ["verification.invalid", "reasons.locality_mismatch", "corrections"] },
      { action: "review", rules_hit: ["po_box"] },
    ]);
    expect(body.meta).toMatchObject({ credits_used: 0, processed: 5 });
  });

  it(
    "blocks a country on blocked_countries and any country off allowed_countries, charging what no policy " + "charges",
    async () => {
      const plain = await createAccount({ pack: 5 });
      const policed = await createAccount({ pack: 5 });
      await put(policed.key, { allowed_countries: ["US", "zz"], blocked_countries: ["GB"] });
      const addresses = [SPRINGFIELD, ROMA, LONDON, test("verified")];
      const [without, withPolicy] = await Promise.all([
        batch(await anotherKey(plain), addresses),
        batch(await anotherKey(policed), addresses),
      ]);
      expect(withPolicy!.body.data.results.map((r) => r.data.policy)).toEqual([
        { action: "send", rules_hit: [] },
        { action: "block", rules_hit: ["allowed_countries"] },
        { action: "block", rules_hit: ["blocked_countries", "allowed_countries"] },
        { action: "send", rules_hit: [] },
      ]);
      expect(without!.body.data.results.map((r) => r.data.policy)).toEqual([null, null, null, null]);
      expect(withPolicy!.body.data.results.map((r) => r.meta)).toEqual(without!.body.data.results.map((r) => r.meta));
      // Springfield and Downing Street are verified (1 credit each), Rome only format-checked, the test address free.
      expect(withPolicy!.body.data.results.map((r) => [r.data.verification, r.meta.credits_used])).toEqual([
        ["verified", 1],
        ["format_only", 0],
        ["verified", 1],
        ["verified", 0],
      ]);
      expect(withPolicy!.body.meta).toMatchObject({ credits_used: 2, credits_remaining: 3 });
      expect(without!.body.meta).toMatchObject({ credits_used: 2, credits_remaining: 3 });
    },
  );

  it(
    "bills a blocked verified address 1 credit, judges its repeat by the policy as it stands, and DELETE brings " +
      "back null",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const key = await keys(acct);
      await put(key(), { verification: { verified: "block" } });
      const first = await lookup(key(), SPRINGFIELD);
      expect(first.body.data).toMatchObject({
        verification: "verified",
        policy: { action: "block", rules_hit: ["verification.verified"] },
      });
      expect(first.body.meta).toMatchObject({
        credits_used: 1,
        credits_remaining: 4,
        cache_hit: false,
        suppressed: false,
      });
      await put(key(), { verification: { verified: "review" } });
      const repeat = await lookup(key(), "1 main st, springfield, il 62701", "US");
      expect(repeat.body.data.policy).toEqual({ action: "review", rules_hit: ["verification.verified"] });
      expect(repeat.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 4, cache_hit: true });
      expect((await remove(key())).body.data).toEqual({ deleted: true });
      expect((await lookup(key(), SPRINGFIELD)).body.data.policy).toBeNull();
      expect((await remove(key())).body.data).toEqual({ deleted: false });
    },
  );

  it.each([
    ["an unknown rule", { deliverable: { risky: "block" } }, "body"],
    ["an unknown action", { po_box: "maybe" }, "po_box"],
    ["an unknown verification", { verification: { unverified: "block" } }, "verification"],
    ["an unknown reason", { reasons: { bounced: "block" } }, "reasons"],
    ["a country that is not two letters", { blocked_countries: ["USA"] }, "blocked_countries.0"],
    ["a code that is no country", { allowed_countries: ["XX"] }, "allowed_countries.0"],
    ["an empty allowed_countries", { allowed_countries: [] }, "allowed_countries"],
  ])("answers %s with 422 VALIDATION_FAILED and stores nothing", async (_label, rules, field) => {
    const acct = await createAccount();
    const { status, body } = await put(acct.key, rules);
    expect([status, body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(Object.keys(body.error.errors!).some((k) => k.startsWith(field))).toBe(true);
    expect((await get(await anotherKey(acct))).body.data.policy).toBeNull();
  });

  it("answers 403 KEY_SCOPE_DENIED for a key without the address scope", async () => {
    const acct = await createAccount({ key: { scopes: ["email"] } });
    const { status, body } = await put(acct.key, { po_box: "block" });
    expect([status, body.error.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
  });
});

describe("the decision on every path", () => {
  it(
    "stamps the browser endpoint's answers with the key owner's policy action (no rules_hit); the sandbox key's " +
      "answers carry null",
    async () => {
      const acct = await createAccount();
      await put(acct.key, { po_box: "review" });
      const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
        user_id: acct.userId,
        allowed_domains: ["shop.example"],
      });
      const browser = await SELF.fetch(
        "https://api.test/api/v1/address/public",
        json(
          { key: pk.key, address: "po-box", country: "ZZ" },
          { Origin: "https://shop.example", "CF-Connecting-IP": "192.0.2.91" },
        ),
      );
      expect(browser.status).toBe(200);
      expect(((await browser.json()) as { data: Answer }).data.policy).toEqual({ action: "review" });
      const sandbox = await call<Answer>(
        "/api/v1/address",
        json(
          { address: test("po-box") },
          { Authorization: "Bearer sk_test_public_sandbox", "CF-Connecting-IP": "192.0.2.92" },
        ),
      );
      expect([sandbox.status, sandbox.body.data.policy]).toEqual([200, null]);
    },
  );

  it("adds policy_action and policy_rules_hit columns to the bulk results CSV", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = await keys(acct);
    await put(key(), { verification: { format_only: "review" }, risk_level: { high: "block" }, po_box: "review" });
    const created = await call<{ job: { id: number } }>(
      "/api/v1/address/bulk",
      json(
        { addresses: ["po-box", "format-only", "unknown-postcode", "verified"], country: "ZZ" },
        { Authorization: `Bearer ${key()}` },
      ),
    );
    expect(created.status).toBe(202);
    const id = created.body.data.job.id;
    const deadline = Date.now() + 20_000;
    let status = "queued";
    while (["queued", "processing"].includes(status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await call<{ job: { status: string } }>(`/api/v1/address/bulk/${id}`, bearer(key()))).body.data.job
        .status;
    }
    expect(status).toBe("completed");
    const csv = await (await SELF.fetch(`https://api.test/api/v1/address/bulk/${id}/results`, bearer(key()))).text();
    const [header, ...rows] = csv
      .trim()
      .split("\n")
      .map((line) => line.split(","));
    expect(header!.slice(-4)).toEqual(["policy_action", "policy_rules_hit", "credits_used", "suppressed"]);
    expect(rows.map((r) => [r[0], ...r.slice(-4)])).toEqual([
      ["0", "review", "po_box", "0", "false"],
      ["1", "review", "verification.format_only", "0", "false"],
      ["2", "block", "risk_level.high", "0", "false"],
      ["3", "send", "", "0", "false"],
    ]);
  });
});
