import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { accountRows, createAccount, lookupEmail, mailboxesShared, mailStats, rcptCount } from "../../helpers";

type Lookup = EmailResult;

describe("email caches", () => {
  it("answers a repeat within 7 days free with cache_hit, without a new handshake", async () => {
    const acct = await createAccount({ pack: 5 });
    const first = await lookupEmail<Lookup>(acct.key, { email: "bob@acme.example" });
    const rcpts = rcptCount(await mailStats(), "bob@acme.example");
    const again = await lookupEmail<Lookup>(acct.key, { email: "bob@acme.example" });
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, refreshed: false, credits_remaining: 4 });
    expect(again.body.data.deliverable).toBe(first.body.data.deliverable);
    expect(rcptCount(await mailStats(), "bob@acme.example")).toBe(rcpts);
    // Another case of the local part may be another mailbox (RFC 5321 2.4): asked again, still a free repeat.
    const upper = await lookupEmail<Lookup>(acct.key, { email: "BOB@acme.example" });
    expect(upper.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 4 });
    expect(upper.body.data).toMatchObject({ email: "BOB@acme.example", deliverable: "deliverable" });
    expect(rcptCount(await mailStats(), "bob@acme.example")).toBeGreaterThan(rcpts);
  });

  it("refresh discards the repeat and the shared answer, probes again and bills as fresh", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "carol@acme.example" });
    const rcpts = rcptCount(await mailStats(), "carol@acme.example");
    const fresh = await lookupEmail<Lookup>(acct.key, { email: "carol@acme.example", refresh: true });
    expect(fresh.body.meta).toMatchObject({ credits_used: 1, cache_hit: false, refreshed: true });
    expect(rcptCount(await mailStats(), "carol@acme.example")).toBe(rcpts + 1);
  });

  it("max_age refreshes only an answer older than max_age", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "dave@acme.example" });
    const young = await lookupEmail<Lookup>(acct.key, { email: "dave@acme.example", max_age: 60 });
    expect(young.body.meta).toMatchObject({ cache_hit: true, credits_used: 0 });
    await mailboxesShared(["dave@acme.example"]);
    await accountRows(acct.accountId, "UPDATE repeats SET created_at = created_at - 120000 WHERE product = 'email'");
    await env.DB.prepare("UPDATE mailbox_answers SET checked_at = checked_at - 120000 WHERE email = ?")
      .bind("dave@acme.example")
      .run();
    const old = await lookupEmail<Lookup>(acct.key, { email: "dave@acme.example", max_age: 60 });
    expect(old.body.meta).toMatchObject({ cache_hit: false, credits_used: 1, refreshed: true });
  });

  it(
    "shares a confirmed mailbox answer across accounts for a week: no handshake, smtp_checked_at predates the " +
      "lookup",
    async () => {
      const first = await createAccount({ pack: 5 });
      const second = await createAccount({ pack: 5 });
      const original = await lookupEmail<Lookup>(first.key, { email: "erin@acme.example" });
      const rcpts = rcptCount(await mailStats(), "erin@acme.example");
      // Shared through the queue after the answer: the consumer stores it about a second later.
      await mailboxesShared(["erin@acme.example"]);
      const shared = await lookupEmail<Lookup>(second.key, { email: "erin@acme.example" });
      expect(rcptCount(await mailStats(), "erin@acme.example")).toBe(rcpts);
      expect(shared.body.data.smtp_checked_at).toBe(original.body.data.smtp_checked_at);
      expect(Date.parse(shared.body.data.smtp_checked_at!)).toBeLessThan(Date.now() - 10);
      expect(shared.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    },
  );

  it("never caches provider_unavailable: the next lookup probes again", async () => {
    const acct = await createAccount({ pack: 5 });
    const first = await lookupEmail<Lookup>(acct.key, { email: "x@dnsfail.example" });
    expect(first.body.data.smtp_reason).toBe("provider_unavailable");
    const [rows] = await accountRows<{ n: number }>(acct.accountId, "SELECT COUNT(*) AS n FROM repeats");
    expect(rows?.n).toBe(0);
    const again = await lookupEmail<Lookup>(acct.key, { email: "x@dnsfail.example" });
    expect(again.body.meta.cache_hit).toBe(false);
  });
});

describe("test addresses", () => {
  it.each([
    ["deliverable", { deliverable: "deliverable", mailbox_exists: true, risk_score: 0 }],
    ["unverified", { deliverable: "risky", reason: "unverified", smtp_checked: false, smtp_reason: "greylisted" }],
    ["catch-all", { deliverable: "risky", reason: "catch_all", mailbox_exists: null }],
    ["disposable", { deliverable: "risky", reason: "disposable", risk_score: 90 }],
    ["role", { deliverable: "risky", reason: "role" }],
    ["undeliverable", { deliverable: "undeliverable", reason: "mailbox_not_found", smtp_reason: "no_mailbox" }],
  ])(
    "%s@service.test gives its canonical answer free, with no DNS, SMTP, history or suppression",
    async (local, expected) => {
      const acct = await createAccount({ pack: 0 });
      const { status, body } = await lookupEmail<Lookup>(acct.key, { email: `${local}+tag@service.test` });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({ ...expected, email: `${local}+tag@service.test` });
      expect(body.meta.credits_used).toBe(0);
      expect(body.data.sources.map((s) => s.dataset)).toEqual(["test-addresses"]);
      const [history] = await accountRows<{ n: number }>(acct.accountId, "SELECT COUNT(*) AS n FROM history");
      const [suppressions] = await accountRows<{ n: number }>(acct.accountId, "SELECT COUNT(*) AS n FROM suppressions");
      expect([history?.n, suppressions?.n]).toEqual([0, 0]);
    },
  );

  it("are the sandbox key's samples", async () => {
    const sample = await lookupEmail<Lookup>("sk_test_public_sandbox", { email: "deliverable@service.test" });
    expect(sample.status).toBe(200);
    expect(sample.body.data.deliverable).toBe("deliverable");
    const other = await lookupEmail("sk_test_public_sandbox", { email: "alice@acme.example" });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("SANDBOX_VALUE_NOT_ALLOWED");
  });
});

describe("suppressions and history from single lookups", () => {
  it(
    "adds an undeliverable verdict to the suppression list and records history; a single lookup never consults the " +
      "list",
    async () => {
      const acct = await createAccount({ pack: 5 });
      await lookupEmail(acct.key, { email: "gone@acme.example" });
      const [row] = await accountRows(
        acct.accountId,
        "SELECT reason, source FROM suppressions WHERE product = 'email' AND key = ?",
        "gone@acme.example",
      );
      expect(row).toEqual({ reason: "mailbox_not_found", source: "verdict" });
      const again = await lookupEmail<Lookup>(acct.key, { email: "gone@acme.example", refresh: true });
      expect(again.body.meta.suppressed).toBe(false);
      const history = await accountRows(
        acct.accountId,
        "SELECT verdict AS deliverable FROM history WHERE product = 'email'",
      );
      expect(history).toHaveLength(2);
    },
  );
});
