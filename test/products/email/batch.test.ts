import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { accountRows, admin, call, createAccount, accountObject, json, lookupEmail, mailStats } from "../../helpers";

interface BatchItem {
  index: number;
  input: string;
  data: EmailResult;
  meta: { credits_used: number; cache_hit: boolean; suppressed: boolean; refreshed: boolean };
}

const batch = (key: string, body: Record<string, unknown>) =>
  call<{ results: BatchItem[] }>("/api/v1/email/batch", json(body, { Authorization: `Bearer ${key}` }));

describe("POST /api/v1/email/batch", () => {
  it("answers in input order with index and input exactly as sent, billing each like a single lookup", async () => {
    const acct = await createAccount({ pack: 10 });
    const emails = [
      "  Alice <alice@acme.example> ",
      "nobody@acme.example",
      "deliverable@service.test",
      "not-an-address",
    ];
    const { status, body } = await batch(acct.key, { emails });
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.index, r.input])).toEqual(emails.map((e, i) => [i, e]));
    expect(body.data.results.map((r) => r.data.deliverable)).toEqual([
      "deliverable",
      "undeliverable",
      "deliverable",
      "undeliverable",
    ]);
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 0, 0, 0]);
    expect(body.meta).toMatchObject({
      requested: 4,
      processed: 4,
      credits_used: 1,
      credits_remaining: 9,
      stopped_reason: null,
    });
  });

  it("verifies repeats within the list once", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await batch(acct.key, { emails: ["a@batch1.example", "A@batch1.example", "a@batch1.example"] });
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 0, 0]);
    expect(body.meta.credits_used).toBe(1);
    const stats = await mailStats();
    const rcpts = stats.sessions.flatMap((s) => s.rcpts).filter((r) => r === "a@batch1.example");
    expect(rcpts).toHaveLength(1);
  });

  it("shares one SMTP session per domain for the addresses there", async () => {
    const acct = await createAccount({ pack: 50 });
    const before = (await mailStats()).sessions.length;
    const emails = ["b", "c", "d", "e"].flatMap((l) => [`${l}@batch2.example`, `${l}@batch3.example`]);
    const { body } = await batch(acct.key, { emails });
    expect(body.meta.processed).toBe(8);
    const sessions = (await mailStats()).sessions.slice(before);
    expect(sessions.filter((s) => s.domains.includes("batch2.example"))).toHaveLength(1);
    expect(sessions.filter((s) => s.domains.includes("batch3.example"))).toHaveLength(1);
    expect((await mailStats()).dataCalls).toBe(0);
  });

  it("answers suppressed addresses from the stored verdict, free, with suppressed true", async () => {
    const acct = await createAccount({ pack: 10 });
    await lookupEmail(acct.key, { email: "gone2@acme.example" });
    const { body } = await batch(acct.key, { emails: ["gone2@acme.example"] });
    expect(body.data.results[0]!.meta).toMatchObject({ suppressed: true, credits_used: 0 });
    expect(body.data.results[0]!.data.reason).toBe("mailbox_not_found");
  });

  it("takes an address off the suppression list when a single re-verify is no longer undeliverable", async () => {
    const acct = await createAccount({ pack: 10 });
    // Written in the old D1 layout: the account's object moves it in on its first use of its lists.
    await env.DB.prepare(
      "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) VALUES (?, 'email', " +
        "?, 'mailbox_not_found', 'verdict', '{}', ?)",
    )
      .bind(acct.accountId, "alice@acme.example", Date.now())
      .run();
    await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(await accountRows(acct.accountId, "SELECT id FROM suppressions WHERE product = 'email'")).toEqual([]);
  });

  it("walks in order and stops where credits run out, returning the paid results so far", async () => {
    const acct = await createAccount({ pack: 2 });
    const emails = [
      "f@batch4.example",
      "deliverable@service.test",
      "g@batch4.example",
      "h@batch4.example",
      "i@batch4.example",
    ];
    const { status, body } = await batch(acct.key, { emails });
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({
      requested: 5,
      processed: 3,
      credits_used: 2,
      credits_remaining: 0,
      stopped_reason: "insufficient_credits",
    });
    expect(body.data.results.map((r) => r.input)).toEqual(emails.slice(0, 3));
  });

  it("lets credits freed by free answers pay for later addresses", async () => {
    const acct = await createAccount({ pack: 1 });
    const { body } = await batch(acct.key, { emails: ["x1@acme.example", "x2@acme.example", "j@batch4.example"] });
    expect(body.meta).toMatchObject({ processed: 3, credits_used: 1, stopped_reason: null });
  });

  it("answers 402 only when the first lookup is refused", async () => {
    const acct = await createAccount({ pack: 0 });
    const refused = await batch(acct.key, { emails: ["a@batch5.example", "deliverable@service.test"] });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe("INSUFFICIENT_CREDITS");
    const partial = await batch(acct.key, { emails: ["deliverable@service.test", "a@batch5.example"] });
    expect(partial.status).toBe(200);
    expect(partial.body.meta).toMatchObject({ processed: 1, stopped_reason: "insufficient_credits" });
  });

  it(
    "stops with key_spend_cap at the key's daily cap, and answers 429 when the cap is spent at the " + "start",
    async () => {
      const acct = await createAccount({ pack: 10, key: { daily_credit_cap: 2 } });
      const first = await batch(acct.key, { emails: ["b@batch5.example", "c@batch5.example", "d@batch5.example"] });
      expect(first.body.meta).toMatchObject({ processed: 2, credits_used: 2, stopped_reason: "key_spend_cap" });
      const capped = await batch(acct.key, { emails: ["e@batch5.example"] });
      expect(capped.status).toBe(429);
      expect(capped.body.error.code).toBe("KEY_SPEND_CAP_REACHED");
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
    },
  );

  it("validates the list: 1 to 50 strings of at most 254 characters, errors keyed by position", async () => {
    const acct = await createAccount({ pack: 1 });
    const tooMany = await batch(acct.key, { emails: Array.from({ length: 51 }, (_, i) => `u${i}@acme.example`) });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.error.errors!)).toEqual(["emails"]);
    const bad = await batch(acct.key, { emails: ["ok@acme.example", "ok@acme.example", "ok@acme.example", 42] });
    expect(Object.keys(bad.body.error.errors!)).toEqual(["emails.3"]);
    expect((await batch(acct.key, { emails: [] })).status).toBe(422);
  });

  it("counts as one request for rate limiting", async () => {
    const acct = await createAccount({ pack: 50 });
    const emails = Array.from({ length: 10 }, () => "deliverable@service.test");
    const responses = await Promise.all(Array.from({ length: 5 }, () => batch(acct.key, { emails })));
    expect(responses.every((r) => r.status === 200)).toBe(true);
  });

  it("answers the sandbox key only when every address is a sample", async () => {
    await admin("PUT", "/sandbox", { enabled: true });
    const sandbox = await batch("sk_test_public_sandbox", {
      emails: ["deliverable@service.test", "role+x@service.test"],
    });
    expect(sandbox.status).toBe(200);
    const refused = await batch("sk_test_public_sandbox", {
      emails: ["deliverable@service.test", "alice@acme.example"],
    });
    expect(refused.body.error.code).toBe("SANDBOX_VALUE_NOT_ALLOWED");
  });
});
