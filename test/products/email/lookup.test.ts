import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { EmailResult } from "../../../src/products/email/result";
import { mailboxConfidence, riskLevel, riskScore } from "../../../src/products/email/score";
import {
  BASE,
  createAccount,
  accountObject,
  json,
  lookupEmail,
  mailboxesShared,
  mailStats,
  rcptCount,
  type Envelope,
} from "../../helpers";

type Lookup = EmailResult;

/** docs/email.md's risk table, written out again from the doc: the answer's fields alone give its components. */
function documentedComponents(d: Lookup): Record<string, number> {
  if (d.deliverable === "undeliverable") return { undeliverable: 100 };
  const rows: [string, number, boolean][] = [
    ["disposable", 90, d.disposable && d.reason !== "typo_domain"],
    ["typo_domain", 60, d.reason === "typo_domain"],
    ["did_you_mean", 20, d.did_you_mean !== null && d.reason !== "typo_domain"],
    ["catch_all", 35, d.catch_all === true],
    ["unverified", Math.round(60 * (1 - (d.mailbox_confidence ?? 0))), d.reason === "unverified"],
    ["role", 25, d.role],
    ["gibberish", 15, d.is_gibberish],
    ["new_domain", 20, d.domain_age_days !== null && d.domain_age_days < 30],
    ["young_domain", 10, d.domain_age_days !== null && d.domain_age_days >= 30 && d.domain_age_days < 180],
    ["no_spf", 5, d.has_spf === false],
    ["no_dmarc", 5, d.has_dmarc === false],
  ];
  return Object.fromEntries(rows.filter(([, , when]) => when).map(([name, points]) => [name, points]));
}

describe("POST /api/v1/email", () => {
  it("answers a confirmed mailbox deliverable and bills 1 credit", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await lookupEmail<Lookup>(acct.key, { email: "Alice <alice@acme.example>" });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      email: "alice@acme.example",
      normalized_email: "alice@acme.example",
      deliverable: "deliverable",
      reason: null,
      syntax_valid: true,
      domain: "acme.example",
      mx_found: true,
      mx_implicit: false,
      has_spf: true,
      dmarc_policy: "reject",
      domain_registered_at: "2015-03-01",
      smtp_checked: true,
      mailbox_exists: true,
      catch_all: false,
      smtp_reason: null,
      mailbox_confidence: null,
    });
    expect(body.meta).toMatchObject({
      credits_used: 1,
      credits_remaining: 4,
      cache_hit: false,
      refreshed: false,
      suppressed: false,
      fair_use_billed: false,
    });
    expect(body.data.sources.map((s) => s.dataset)).toEqual(
      expect.arrayContaining([
        "rfc-5322-syntax",
        "live-dns",
        "disposable-domains",
        "rdap-registration",
        "mailbox-smtp",
      ]),
    );
  });

  it("answers an unknown mailbox undeliverable (mailbox_not_found), free within fair use, and counts it", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "nobody@acme.example" });
    expect(body.data).toMatchObject({
      deliverable: "undeliverable",
      reason: "mailbox_not_found",
      smtp_reason: "no_mailbox",
      mailbox_exists: false,
      smtp_checked: true,
    });
    expect(body.meta).toMatchObject({ credits_used: 0, fair_use_billed: false });
    expect((await accountObject(acct.accountId).snapshot()).fair_use.undeliverable_checked).toBe(1);
  });

  it("bills an undeliverable verdict past fair use and says so", async () => {
    const acct = await createAccount({ pack: 5 });
    const credits = accountObject(acct.accountId);
    const held = await credits.reserve({ requestId: "seed", amount: 1 });
    if (!held.ok) throw new Error("reserve failed");
    await credits.settle(held.reservationId, { credits: 0, usage: { undeliverable_checked: 500 } });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "ghost@acme.example" });
    expect(body.data.deliverable).toBe("undeliverable");
    expect(body.meta).toMatchObject({ credits_used: 1, fair_use_billed: true });
  });

  it("answers a catch-all domain risky with mailbox_exists null", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "anything@catchall.example" });
    expect(body.data).toMatchObject({
      deliverable: "risky",
      reason: "catch_all",
      catch_all: true,
      mailbox_exists: null,
    });
    expect(body.meta.credits_used).toBe(1);
  });

  it(
    "answers greylisting as unverified: risky, smtp_checked false, confidence set, free, no repeat " + "marker",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { body } = await lookupEmail<Lookup>(acct.key, { email: "someone@greylist.example" });
      expect(body.data).toMatchObject({
        deliverable: "risky",
        reason: "unverified",
        smtp_checked: false,
        mailbox_exists: null,
        smtp_reason: "greylisted",
      });
      expect(body.data.mailbox_confidence).toEqual(expect.any(Number));
      expect(body.meta.credits_used).toBe(0);
      const again = await lookupEmail<Lookup>(acct.key, { email: "someone@greylist.example" });
      expect(again.body.meta.cache_hit).toBe(false);
    },
  );

  it("reuses a greylisted answer for 5 minutes without a new handshake, and refresh asks again", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "reuse@greylist.example" });
    await mailboxesShared(["reuse@greylist.example"]);
    const before = rcptCount(await mailStats(), "reuse@greylist.example");
    const other = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(other.key, { email: "reuse@greylist.example" });
    expect(body.data.smtp_reason).toBe("greylisted");
    expect(rcptCount(await mailStats(), "reuse@greylist.example")).toBe(before);
    // The server may accept by now (greylisting learnt the sender): refresh always asks.
    const { body: fresh } = await lookupEmail<Lookup>(other.key, { email: "reuse@greylist.example", refresh: true });
    expect(fresh.data.smtp_reason).toBe("greylisted");
    expect(fresh.meta.credits_used).toBe(0);
    expect(rcptCount(await mailStats(), "reuse@greylist.example")).toBe(before + 1);
  });

  it("applies the null-MX rule: undeliverable without any handshake", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "x@nullmx.example" });
    expect(body.data).toMatchObject({
      deliverable: "undeliverable",
      reason: "null_mx",
      mx_found: false,
      smtp_checked: false,
    });
    expect(body.meta.credits_used).toBe(0);
    expect(rcptCount(await mailStats(), "x@nullmx.example")).toBe(0);
    expect((await accountObject(acct.accountId).snapshot()).fair_use.undeliverable_checked).toBe(0);
  });

  it("applies the implicit-MX fallback to the A record", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "sam@implicit.example" });
    expect(body.data).toMatchObject({ mx_found: true, mx_implicit: true, deliverable: "deliverable" });
  });

  it("answers a domain without MX or address records undeliverable (no_mx), free", async () => {
    const acct = await createAccount({ pack: 5 });
    for (const email of ["a@nomail.example", "a@does-not-exist.example"]) {
      const { body } = await lookupEmail<Lookup>(acct.key, { email });
      expect(body.data, email).toMatchObject({ deliverable: "undeliverable", reason: "no_mx", mx_found: false });
      expect(body.meta.credits_used).toBe(0);
    }
  });

  it("gives an honest unverified answer, never a 500, when the resolver fails", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await lookupEmail<Lookup>(acct.key, { email: "a@dnsfail.example" });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      deliverable: "risky",
      reason: "unverified",
      smtp_reason: "provider_unavailable",
      mx_found: false,
    });
    expect(body.meta.credits_used).toBe(0);
  });

  it("settles disposable and typo-squat domains from the lists without a handshake", async () => {
    const acct = await createAccount({ pack: 5 });
    const disposable = await lookupEmail<Lookup>(acct.key, { email: "temp@mailinator.com" });
    expect(disposable.body.data).toMatchObject({ deliverable: "risky", reason: "disposable", disposable: true });
    const typo = await lookupEmail<Lookup>(acct.key, { email: "john@gmial.com" });
    expect(typo.body.data).toMatchObject({ reason: "typo_domain", did_you_mean: "john@gmail.com" });
    const stats = await mailStats();
    expect(rcptCount(stats, "temp@mailinator.com") + rcptCount(stats, "john@gmial.com")).toBe(0);
  });

  it("applies provider username rules: an impossible Gmail username is undeliverable without a handshake", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "abc@gmail.com" });
    expect(body.data).toMatchObject({ deliverable: "undeliverable", reason: "invalid_username", free_provider: true });
    expect(rcptCount(await mailStats(), "abc@gmail.com")).toBe(0);
  });

  it("normalizes Gmail aliases and reports them", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "John.Smith+news@gmail.com" });
    expect(body.data).toMatchObject({
      normalized_email: "johnsmith@gmail.com",
      is_alias: true,
      mx_provider: expect.any(String),
      dmarc_policy: "none",
    });
  });

  it("answers a role address that exists risky with reason role", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "info@acme.example" });
    expect(body.data).toMatchObject({ deliverable: "risky", reason: "role", role: true, mailbox_exists: true });
  });

  it("answers malformed input 200 undeliverable invalid_syntax, free and without DNS", async () => {
    const acct = await createAccount({ pack: 0 });
    const { status, body } = await lookupEmail<Lookup>(acct.key, { email: "not an address" });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ syntax_valid: false, deliverable: "undeliverable", reason: "invalid_syntax" });
    expect(body.meta.credits_used).toBe(0);
  });

  it("returns scores a caller can recompute from the answer's own fields", async () => {
    const emails = [
      "alice@acme.example",
      "anything@catchall.example",
      "someone@greylist.example",
      "newbie@young.example",
      "temp@mailinator.com",
    ];
    // A typo domain on the disposable list, an unanswered DMARC question, a resolver that answers nothing.
    emails.push("bob@gmial.com", "alice@dmarcfail.example", "a@dnsfail.example");
    for (const email of emails) {
      // An account each: eight lookups in a row would meet the key's per-second limit.
      const acct = await createAccount({ pack: 2 });
      const { status, body } = await lookupEmail<Lookup>(acct.key, { email });
      expect(status, email).toBe(200);
      const d = body.data;
      if (d.reason === "unverified") expect(d.mailbox_confidence, email).toBe(mailboxConfidence(d));
      expect(d.risk_score, email).toBe(riskScore(d));
      expect(d.risk_components, email).toEqual(documentedComponents(d));
      expect(d.risk_level, email).toBe(riskLevel(d.risk_score));
      expect(
        Object.values(d.risk_components).reduce((a, b) => a + b, 0),
        email,
      ).toBe(Math.min(100, d.risk_score) === 100 ? 100 : d.risk_score);
    }
  });

  it("flags a freshly registered domain through RDAP age", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookupEmail<Lookup>(acct.key, { email: "newbie@young.example" });
    expect(body.data.domain_age_days).toBe(0);
    expect(body.data.risk_components.new_domain).toBe(20);
  });

  it("answers 402 INSUFFICIENT_CREDITS on an empty balance and runs nothing", async () => {
    const acct = await createAccount({ pack: 0 });
    const { status, body } = await lookupEmail(acct.key, { email: "paid-only@acme.example" });
    expect(status).toBe(402);
    expect(body.error.code).toBe("INSUFFICIENT_CREDITS");
    expect(rcptCount(await mailStats(), "paid-only@acme.example")).toBe(0);
  });

  it.each([
    [{ email: "x".repeat(255) }, "email"],
    [{ email: "a@b.c", max_age: 59 }, "max_age"],
    [{ email: "a@b.c", timeout: 61 }, "timeout"],
    [{ email: "a@b.c", callback_url: "http://insecure.example/hook", callback_secret: "s".repeat(16) }, "callback_url"],
    [{ email: "a@b.c", callback_url: "https://ok.example/hook" }, "callback_secret"],
    [{ email: "a@b.c", callback_url: "https://ok.example/hook", callback_secret: "short" }, "callback_secret"],
    [{}, "email"],
  ])("answers %j with 422 on %s, free", async (body, field) => {
    const acct = await createAccount({ pack: 1 });
    const res = await lookupEmail(acct.key, body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error.errors!)).toContain(field);
    expect((await accountObject(acct.accountId).snapshot()).available).toBe(1);
  });
});

describe("free signals with the resolver unreachable", () => {
  // The Worker with DOH_URL pointing at a closed port: every DNS question fails.
  async function lookupWithoutDns(key: string, address: string) {
    const ctx = createExecutionContext();
    const request = new Request(`${BASE}/api/v1/email`, json({ email: address }, { Authorization: `Bearer ${key}` }));
    const response = await worker.fetch(request, { ...env, DOH_URL: "http://127.0.0.1:9/dns-query" }, ctx);
    await waitOnExecutionContext(ctx);
    return (await response.json()) as Envelope<Lookup>;
  }

  it(
    "still decides disposable, typo and provider-username answers, billed as usual; the rest stays unverified and " +
      "free",
    async () => {
      const acct = await createAccount({ pack: 5 });
      expect((await lookupWithoutDns(acct.key, "admin@mailinator.com")).data).toMatchObject({
        deliverable: "risky",
        reason: "disposable",
      });
      expect((await lookupWithoutDns(acct.key, "user@gmai.com")).data).toMatchObject({
        reason: "typo_domain",
        did_you_mean: "user@gmail.com",
      });
      expect((await lookupWithoutDns(acct.key, "ab@gmail.com")).data).toMatchObject({
        deliverable: "undeliverable",
        reason: "invalid_username",
      });
      // A domain no other file asks about: the isolate's DNS cache, shared with every file in this runtime, has no
      // answer for it, so the unreachable resolver decides.
      const open = await lookupWithoutDns(acct.key, `a@unasked-${crypto.randomUUID().slice(0, 8)}.example`);
      expect(open.data).toMatchObject({
        deliverable: "risky",
        reason: "unverified",
        smtp_reason: "provider_unavailable",
      });
      expect(open.meta.credits_used).toBe(0);
      // Two usable (risky) answers at 1 each; invalid_username and unverified are free, as with DNS up.
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(3);
    },
  );
});
