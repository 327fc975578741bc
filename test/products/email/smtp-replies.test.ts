import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import rulesSnapshot from "../../../datasets/snapshots/provider-rules.json";
import { mailboxOutcome, providerRuleFor } from "../../../src/products/email/provider-rules";
import type { EmailResult } from "../../../src/products/email/result";
import { riskLevel, riskScore } from "../../../src/products/email/score";
import {
  accountRows,
  bearer,
  call,
  createAccount,
  accountObject,
  lookupEmail,
  mailboxesShared,
  type TestAccount,
} from "../../helpers";

/**
 * What real mail servers say, end to end: the stand-in SMTP server answers as test/fixtures/constants.ts (MAIL_POLICY)
 * says, the real sidecar reads the reply (RFC 3463 / RFC 5321), and the Worker applies the provider-rules dataset.
 * Each lookup asserts verdict, reason, score (recomputed from the answer), sources, credits, the fair-use counter and
 * the suppression list. The sample domains and their verdicts are listed in docs/offline.md.
 */
const PROVIDER_RULES = { dataset: "provider-rules", version: rulesSnapshot.version, coverage: "full" };

/** The account's suppression of `email`, from its object (where the lists live). */
async function suppression(acct: TestAccount, email: string) {
  const [row] = await accountRows(
    acct.accountId,
    "SELECT reason, source FROM suppressions WHERE product = 'email' AND key = ?",
    email,
  );
  return row ?? null;
}

async function look(email: string) {
  const acct = await createAccount({ pack: 5 });
  const { status, body } = await lookupEmail<EmailResult>(acct.key, { email });
  expect(status).toBe(200);
  const d = body.data;
  // Anyone holding the answer can recompute its score.
  expect(d.risk_score, email).toBe(riskScore(d));
  expect(d.risk_level, email).toBe(riskLevel(d.risk_score));
  const fairUse = (await accountObject(acct.accountId).snapshot()).fair_use;
  return { acct, d, meta: body.meta, fairUse, suppressed: await suppression(acct, email) };
}

describe("mailbox status replies (mailstatus.example)", () => {
  it.each([
    ["full@mailstatus.example", "552 5.2.2"],
    ["overquota@mailstatus.example", "452 4.2.2"],
  ])("%s (%s): a full mailbox exists and is risky / mailbox_full, billed 1, never suppressed", async (email) => {
    const { d, meta, fairUse, suppressed } = await look(email);
    expect(d).toMatchObject({
      deliverable: "risky",
      reason: "mailbox_full",
      smtp_reason: "mailbox_full",
      smtp_checked: true,
      mailbox_exists: true,
      catch_all: false,
      mailbox_confidence: null,
      risk_score: 50,
      risk_level: "medium",
      risk_components: { mailbox_full: 50 },
    });
    expect(d.sources.map((s) => s.dataset)).toContain("mailbox-smtp");
    expect(d.sources).not.toContainEqual(PROVIDER_RULES);
    expect(meta).toMatchObject({ credits_used: 1, fair_use_billed: false });
    expect(fairUse.undeliverable_checked).toBe(0);
    expect(suppressed).toBeNull();
  });

  it(
    "5.2.1: a disabled mailbox is undeliverable / mailbox_disabled, free within fair use, counted and " + "suppressed",
    async () => {
      const { d, meta, fairUse, suppressed } = await look("disabled@mailstatus.example");
      expect(d).toMatchObject({
        deliverable: "undeliverable",
        reason: "mailbox_disabled",
        smtp_reason: "mailbox_disabled",
        smtp_checked: true,
        mailbox_exists: true,
        risk_score: 100,
        risk_components: { undeliverable: 100 },
      });
      expect(meta).toMatchObject({ credits_used: 0, fair_use_billed: false });
      expect(fairUse.undeliverable_checked).toBe(1);
      expect(suppressed).toEqual({ reason: "mailbox_disabled", source: "verdict" });
    },
  );

  it("5.7.1: a policy refusal says nothing about the mailbox: risky / unverified, free, not suppressed", async () => {
    const { d, meta, fairUse, suppressed } = await look("blocked@mailstatus.example");
    expect(d).toMatchObject({
      deliverable: "risky",
      reason: "unverified",
      smtp_reason: "provider_unavailable",
      smtp_checked: false,
      mailbox_exists: null,
    });
    expect(d.mailbox_confidence).toBe(0.6);
    expect(meta.credits_used).toBe(0);
    expect(fairUse.undeliverable_checked).toBe(0);
    expect(suppressed).toBeNull();
  });

  it("5.1.1 stays undeliverable / mailbox_not_found", async () => {
    const { d, suppressed } = await look("nobody@mailstatus.example");
    expect(d).toMatchObject({
      deliverable: "undeliverable",
      reason: "mailbox_not_found",
      smtp_reason: "no_mailbox",
      mailbox_exists: false,
    });
    expect(suppressed).toEqual({ reason: "mailbox_not_found", source: "verdict" });
  });

  it("a full mailbox lifts an earlier verdict suppression of the address", async () => {
    const acct = await createAccount({ pack: 5 });
    // Written in the old D1 layout: the account's object moves it in on its first use of its lists.
    await env.DB.prepare(
      "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) VALUES (?, 'email', " +
        "?, 'mailbox_not_found', 'verdict', '{}', ?)",
    )
      .bind(acct.accountId, "full@mailstatus.example", Date.now() - 60_000)
      .run();
    const { body } = await lookupEmail<EmailResult>(acct.key, { email: "full@mailstatus.example" });
    expect(body.data.reason).toBe("mailbox_full");
    expect(await suppression(acct, "full@mailstatus.example")).toBeNull();
  });
});

describe("provider rules (provider-rules dataset)", () => {
  it.each([
    ["someone@yahoo-mx.example", "yahoo"],
    ["someone@icloud-mx.example", "icloud"],
    ["someone@proton-mx.example", "proton"],
  ])(
    "%s: an accept-all provider is never a confirmed mailbox: risky / catch_all, billed 1, rule cited",
    async (email, provider) => {
      const { d, meta, suppressed } = await look(email);
      expect(d).toMatchObject({
        deliverable: "risky",
        reason: "catch_all",
        mx_provider: provider,
        smtp_checked: true,
        mailbox_exists: null,
        catch_all: true,
        smtp_reason: null,
        risk_score: 35,
        risk_components: { catch_all: 35 },
      });
      expect(d.sources).toContainEqual(PROVIDER_RULES);
      expect(meta.credits_used).toBe(1);
      expect(suppressed).toBeNull();

      // The domain lookup reads the shared answers the queue's consumer stores after the address's answer.
      await mailboxesShared([email]);
      const domain = await call<{
        catch_all: boolean | null;
        sources: { dataset: string; version: string; coverage: string }[];
      }>(`/api/v1/email/domain/${d.domain}`, bearer((await createAccount({ pack: 2 })).key));
      expect(domain.body.data.catch_all).toBe(true);
      expect(domain.body.data.sources).toContainEqual(PROVIDER_RULES);
    },
  );

  it.each([
    ["m365-mx.example", "550 5.4.1 Recipient address rejected"],
    ["outlook-mx.example", "550 5.5.0 mailbox unavailable"],
    ["yandex-mx.example", "550 5.7.1 No such user!"],
  ])(
    "%s (%s): the provider's own 'no such user' is undeliverable / mailbox_not_found, its mailboxes deliverable",
    async (domain) => {
      const gone = await look(`nobody@${domain}`);
      expect(gone.d).toMatchObject({
        deliverable: "undeliverable",
        reason: "mailbox_not_found",
        smtp_reason: "no_mailbox",
        mailbox_exists: false,
        risk_score: 100,
      });
      expect(gone.d.sources).toContainEqual(PROVIDER_RULES);
      expect(gone.meta.credits_used).toBe(0);
      expect(gone.fairUse.undeliverable_checked).toBe(1);
      expect(gone.suppressed).toEqual({ reason: "mailbox_not_found", source: "verdict" });

      const alice = await look(`alice@${domain}`);
      expect(alice.d).toMatchObject({
        deliverable: "deliverable",
        reason: null,
        mailbox_exists: true,
        catch_all: false,
        risk_score: 0,
      });
      expect(alice.d.sources).toContainEqual(PROVIDER_RULES);
      expect(alice.meta.credits_used).toBe(1);
    },
  );

  it("applies one rule per MX host and reads what a rule does not name by the general rules", () => {
    const yahoo = providerRuleFor([{ host: "mta5.am0.yahoodns.net." }]);
    expect(yahoo?.id).toBe("yahoo-aol");
    expect(providerRuleFor([{ host: "aspmx.l.google.com" }])).toBeNull();
    expect(providerRuleFor([{ host: "HOTMAIL-COM.olc.protection.outlook.com" }])?.id).toBe("outlook-com");
    const reply = (
      outcome: "accepted" | "unavailable" | "mailbox_full",
      smtpCode: number,
      smtpMessage: string,
      enhancedStatus: string | null,
    ) => ({
      address: "a@x.example",
      outcome,
      smtpCode,
      smtpMessage,
      enhancedStatus,
    });
    const refused = { verdict: false };
    // Accepted at an accept-all provider even when the random address was refused: still not a confirmed mailbox.
    expect(mailboxOutcome(reply("accepted", 250, "ok", null), refused, yahoo)).toBe("catch_all");
    expect(mailboxOutcome(reply("accepted", 250, "ok", null), refused, null)).toBe("accepted");
    const yandex = providerRuleFor([{ host: "mx.yandex.net" }]);
    expect(mailboxOutcome(reply("unavailable", 550, "5.7.1 No such user!", "5.7.1"), refused, yandex)).toBe(
      "no_mailbox",
    );
    expect(mailboxOutcome(reply("unavailable", 550, "5.7.1 Blocked by policy", "5.7.1"), refused, yandex)).toBe(
      "provider_unavailable",
    );
    expect(mailboxOutcome(reply("unavailable", 550, "5.7.1 No such user!", "5.7.1"), refused, null)).toBe(
      "provider_unavailable",
    );
    expect(mailboxOutcome(reply("mailbox_full", 552, "5.2.2 full", "5.2.2"), refused, yandex)).toBe("mailbox_full");
    expect(mailboxOutcome(undefined, { verdict: null }, yandex)).toBe("provider_unavailable");
    // Accepted while the random address got no verdict: the reason it got none, never a confirmed mailbox.
    const accepted = reply("accepted", 250, "ok", null);
    for (const outcome of ["greylisted", "timeout", "blocked"] as const)
      expect(mailboxOutcome(accepted, { verdict: null, answer: { outcome } }, null)).toBe(outcome);
    expect(mailboxOutcome(accepted, { verdict: null, answer: { outcome: "deferred" } }, null)).toBe("timeout");
    expect(mailboxOutcome(accepted, { verdict: null, answer: { outcome: "unavailable" } }, null)).toBe(
      "provider_unavailable",
    );
    expect(mailboxOutcome(accepted, { verdict: null }, null)).toBe("provider_unavailable");
    // A provider whose rule names its own "no such user" replies refuses unknown addresses: confirmed.
    expect(mailboxOutcome(accepted, { verdict: null, answer: { outcome: "unavailable" } }, yandex)).toBe("accepted");
  });
});
