/**
 * Answers keyed by what was asked (docs/email.md, "Spellings of one address"): a mailbox answer serves another spelling
 * only where the provider's rule delivers both to one mailbox (gmail: dots, +tags, case), and even then carries the
 * asked spelling's own fields; elsewhere (RFC 5321: the local part's case is the server's business) the spelling is
 * asked again. Billing stays as documented: a repeat of the same normalized_email within 7 days is free.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EmailResult } from "../../../src/products/email/result";
import { asAsked } from "../../../src/products/email/as-asked";
import { cannedAnswer } from "../../../src/products/email/test-addresses";
import { call, createAccount, json, lookupEmail, mailboxesShared } from "../../helpers";

type Batch = { results: { input: string; data: EmailResult; meta: { credits_used: number; cache_hit: boolean } }[] };

const shared = async (domain: string) =>
  (
    await env.DB.prepare("SELECT email, outcome FROM mailbox_answers WHERE domain = ? ORDER BY email")
      .bind(domain)
      .all<{ email: string; outcome: string }>()
  ).results;

describe("gmail-like provider: spellings of one mailbox share its answer, each with its own fields", () => {
  it(
    "a +tag and dotted spelling answers, then its siblings are free repeats that carry their own email, is_alias " +
      "and normalized_email",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const tagged = await lookupEmail<EmailResult>(acct.key, { email: "John.Smith+news@gmail.com" });
      expect(tagged.body.data).toMatchObject({
        email: "John.Smith+news@gmail.com",
        normalized_email: "johnsmith@gmail.com",
        is_alias: true,
        deliverable: "deliverable",
      });
      expect(tagged.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });

      const plain = await lookupEmail<EmailResult>(acct.key, { email: "johnsmith@gmail.com" });
      expect(plain.body.data).toMatchObject({
        email: "johnsmith@gmail.com",
        normalized_email: "johnsmith@gmail.com",
        is_alias: false,
        deliverable: "deliverable",
      });
      expect(plain.body.meta).toMatchObject({ credits_used: 0, cache_hit: true });

      const dotted = await lookupEmail<EmailResult>(acct.key, { email: "JOHN.smith@gmail.com" });
      expect(dotted.body.data).toMatchObject({
        email: "JOHN.smith@gmail.com",
        normalized_email: "johnsmith@gmail.com",
        is_alias: true,
        deliverable: "deliverable",
      });
      expect(dotted.body.meta).toMatchObject({ credits_used: 0, cache_hit: true });
      // One handshake answer, stored under the mailbox the provider delivers all three spellings to.
      await mailboxesShared(["johnsmith@gmail.com"]);
      expect(await shared("gmail.com")).toEqual([{ email: "johnsmith@gmail.com", outcome: "accepted" }]);
    },
  );

  it(
    "another account reuses the shared answer for a sibling spelling without a new handshake, billed as its own " +
      "fresh lookup",
    async () => {
      const first = await createAccount({ pack: 5 });
      const a = await lookupEmail<EmailResult>(first.key, { email: "john.smith+shop@gmail.com" });
      await mailboxesShared(["johnsmith@gmail.com"], Date.parse(a.body.data.smtp_checked_at!));
      const second = await createAccount({ pack: 5 });
      const b = await lookupEmail<EmailResult>(second.key, { email: "johnsmith@gmail.com" });
      expect(b.body.data).toMatchObject({
        email: "johnsmith@gmail.com",
        is_alias: false,
        smtp_checked: true,
        smtp_checked_at: a.body.data.smtp_checked_at,
      });
      expect(b.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    },
  );
});

describe("ordinary domain: only the spelling asked is answered", () => {
  it(
    "a case variant is asked again (the server tells Bob from bob): free as a repeat of the normalized address, its " +
      "own verdict",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const upper = await lookupEmail<EmailResult>(acct.key, { email: "Bob@mixedcase.example" });
      expect(upper.body.data).toMatchObject({
        email: "Bob@mixedcase.example",
        normalized_email: "bob@mixedcase.example",
        deliverable: "deliverable",
      });
      expect(upper.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });

      const lower = await lookupEmail<EmailResult>(acct.key, { email: "bob@mixedcase.example" });
      expect(lower.body.data).toMatchObject({
        email: "bob@mixedcase.example",
        deliverable: "undeliverable",
        reason: "mailbox_not_found",
        is_alias: false,
      });
      expect(lower.body.meta).toMatchObject({ credits_used: 0, cache_hit: true });

      const again = await lookupEmail<EmailResult>(acct.key, { email: "Bob@mixedcase.example" });
      expect(again.body.data).toMatchObject({ email: "Bob@mixedcase.example", deliverable: "deliverable" });
      expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true });
      await mailboxesShared(["Bob@mixedcase.example", "bob@mixedcase.example"]);
      expect(await shared("mixedcase.example")).toEqual([
        { email: "Bob@mixedcase.example", outcome: "accepted" },
        { email: "bob@mixedcase.example", outcome: "no_mailbox" },
      ]);
      // The case variant's undeliverable answer is not the normalized address's: it suppresses nothing.
      const list = await call<{ suppressions: unknown[] }>("/api/v1/email/suppressions", {
        headers: { Authorization: `Bearer ${acct.key}` },
      });
      expect(list.body.data.suppressions).toEqual([]);
    },
  );

  it(
    "a +tag at a domain without a provider rule is another address: its refusal never reaches the untagged " + "one",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const tagged = await lookupEmail<EmailResult>(acct.key, { email: "carol+news@acme.example" });
      expect(tagged.body.data).toMatchObject({
        normalized_email: "carol+news@acme.example",
        is_alias: true,
        deliverable: "undeliverable",
      });
      const plain = await lookupEmail<EmailResult>(acct.key, { email: "carol@acme.example" });
      expect(plain.body.data).toMatchObject({
        normalized_email: "carol@acme.example",
        is_alias: false,
        deliverable: "deliverable",
      });
      expect(plain.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    },
  );

  it(
    "within one batch, copies of a normalized address carry their own fields; a copy of another mailbox gets no " +
      "mailbox answer",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const emails = [
        "John.Smith+list@gmail.com",
        "johnsmith@gmail.com",
        "Bob@mixedcase.example",
        "bob@mixedcase.example",
      ];
      const { body } = await call<Batch>(
        "/api/v1/email/batch",
        json({ emails }, { Authorization: `Bearer ${acct.key}` }),
      );
      const [tagged, plain, upper, lower] = body.data.results;
      expect(tagged!.data).toMatchObject({ email: emails[0], is_alias: true, deliverable: "deliverable" });
      expect(plain!.data).toMatchObject({
        email: emails[1],
        is_alias: false,
        deliverable: "deliverable",
        smtp_checked: true,
      });
      expect(plain!.meta).toMatchObject({ credits_used: 0, cache_hit: true });
      expect(upper!.data).toMatchObject({ email: emails[2], deliverable: "deliverable" });
      expect(lower!.data).toMatchObject({
        email: emails[3],
        deliverable: "risky",
        reason: "unverified",
        smtp_checked: false,
        mailbox_exists: null,
        catch_all: null,
      });
      expect(lower!.meta).toMatchObject({ credits_used: 0, cache_hit: true });
    },
  );
});

describe("asAsked: a stored answer re-spelt", () => {
  const stored = (over: Partial<EmailResult>): EmailResult => ({
    ...cannedAnswer("undeliverable", "service.test", "x@service.test")!,
    sources: [],
    ...over,
  });

  it(
    "a gmail answer about a tagged spelling keeps its mailbox verdict for a sibling, never its is_alias, email or " +
      "role",
    () => {
      const tagged = stored({
        email: "John.Smith+news@gmail.com",
        normalized_email: "johnsmith@gmail.com",
        is_alias: true,
        domain: "gmail.com",
        mx_provider: "google",
      });
      const sibling = asAsked(tagged, "johnsmith@gmail.com");
      expect(sibling).toMatchObject({
        email: "johnsmith@gmail.com",
        normalized_email: "johnsmith@gmail.com",
        is_alias: false,
        deliverable: "undeliverable",
        reason: "mailbox_not_found",
      });
      expect(asAsked(tagged, "John.Smith+news@gmail.com")).toBe(tagged);
    },
  );

  it("an ordinary domain's answer about one case gives another case no mailbox answer", () => {
    const upper = stored({
      email: "Bob@acme.example",
      normalized_email: "bob@acme.example",
      domain: "acme.example",
      mx_provider: "other",
    });
    expect(asAsked(upper, "bob@acme.example")).toMatchObject({
      email: "bob@acme.example",
      deliverable: "risky",
      reason: "unverified",
      mailbox_exists: null,
      smtp_checked: false,
    });
  });

  it("a role spelling of a shared mailbox is scored as a role address, computed not copied", () => {
    const accepted = {
      ...cannedAnswer("deliverable", "service.test", "x@service.test")!,
      email: "sup.port@gmail.com",
      normalized_email: "support@gmail.com",
      is_alias: true,
      domain: "gmail.com",
      sources: [],
    };
    expect(accepted).toMatchObject({ role: false, deliverable: "deliverable" });
    const role = asAsked(accepted, "support@gmail.com");
    expect(role).toMatchObject({
      email: "support@gmail.com",
      is_alias: false,
      role: true,
      deliverable: "risky",
      reason: "role",
      mailbox_exists: true,
    });
    expect(role.risk_components).toMatchObject({ role: 25 });
  });
});
