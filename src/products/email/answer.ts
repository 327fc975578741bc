import { SOURCES, type Source } from "./datasets";
import { dnsSources, type DomainFacts } from "./domain-facts";
import { PROVIDER_RULES_SOURCE, providerRuleFor } from "./provider-rules";
import type { EmailResult, MailboxOutcome, Outcome, Reason, SmtpReason, Verdict } from "./result";
import { mailboxConfidence, riskComponents, riskLevel, riskScore } from "./score";
import type { checkTypo } from "./typo";
import { liveSource, whole, DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";

/** Builds full email results; every score is computed from the answer's own fields (score.ts). */

export interface MailboxAnswer {
  outcome: MailboxOutcome;
  checkedAt: number;
  /** For an accepted address: null when the handshake could not tell whether the domain takes any address. */
  catchAll?: boolean | null;
  /** False when no handshake was tried (DNS gave no host to ask): the answer then cites no mailbox check. */
  asked?: boolean;
}

/** Everything gathered about one well-formed address before its verdict. */
export interface Prepared {
  email: string;
  local: string;
  domain: string;
  normalizedEmail: string;
  isAlias: boolean;
  usernameInvalid: boolean;
  usernameRuleApplied: boolean;
  role: boolean;
  disposable: boolean;
  free: boolean;
  gibberish: boolean;
  typo: ReturnType<typeof checkTypo>;
  facts: DomainFacts;
  known: MailboxAnswer | null;
}

const SMTP_REASON: Partial<Record<MailboxOutcome, SmtpReason>> = {
  no_mailbox: "no_mailbox",
  mailbox_full: "mailbox_full",
  mailbox_disabled: "mailbox_disabled",
  greylisted: "greylisted",
  blocked: "blocked",
  timeout: "timeout",
  provider_unavailable: "provider_unavailable",
};

const SYNTAX_SOURCE = whole("rfc-5322-syntax", "rfc5322-rfc5321");

function sourcesFor(p: Prepared, mailbox: MailboxAnswer | null, confirmed: boolean): Source[] {
  const [dns, ...rdap] = dnsSources(p.facts);
  const sources: Source[] = [SYNTAX_SOURCE, dns!, SOURCES.disposable, SOURCES.role, SOURCES.free, SOURCES.typo];
  if (p.usernameRuleApplied) sources.push(SOURCES.rules);
  if (p.facts.mxProvider !== null) sources.push(SOURCES.mx);
  sources.push(...rdap);
  // A handshake that gave no answer (greylisted, timed out, the sidecar unreachable) is cited as asked, `none`.
  if (mailbox && mailbox.asked !== false) {
    const version = new Date(mailbox.checkedAt).toISOString().slice(0, 10);
    sources.push(liveSource({ dataset: "mailbox-smtp", version, answered: confirmed, standIn: p.facts.standIn }));
  }
  // The provider's rule decided how its answer was read (docs/email.md, "Provider rules").
  if (confirmed && mailbox && providerRuleFor(p.facts.mxHosts)) sources.push(PROVIDER_RULES_SOURCE);
  return sources;
}

export function answer(
  p: Prepared,
  verdict: Verdict,
  reason: Reason | null,
  mailbox: MailboxAnswer | null,
): EmailResult {
  const confirmed =
    mailbox !== null &&
    ["accepted", "no_mailbox", "mailbox_full", "mailbox_disabled", "catch_all"].includes(mailbox.outcome);
  // RFC 3463 x.2.1 and x.2.2: the mailbox exists but is disabled or full.
  const exists = mailbox !== null && ["accepted", "mailbox_full", "mailbox_disabled"].includes(mailbox.outcome);
  const smtpReason = mailbox ? (SMTP_REASON[mailbox.outcome] ?? null) : null;
  const fields = {
    email: p.email,
    normalized_email: p.normalizedEmail,
    is_alias: p.isAlias,
    is_gibberish: p.gibberish,
    deliverable: verdict,
    reason,
    syntax_valid: true,
    domain: p.domain,
    mx_found: p.facts.mxFound,
    mx_implicit: p.facts.mxImplicit,
    mx_provider: p.facts.mxProvider,
    has_spf: p.facts.hasSpf,
    dmarc_policy: p.facts.dmarcPolicy,
    has_dmarc: p.facts.hasDmarc,
    domain_registered_at: p.facts.registeredAt,
    domain_age_days: p.facts.ageDays,
    disposable: p.disposable,
    role: p.role,
    free_provider: p.free,
    smtp_checked: confirmed,
    smtp_checked_at: confirmed ? new Date(mailbox.checkedAt).toISOString() : null,
    mailbox_exists: confirmed ? (exists ? true : mailbox.outcome === "no_mailbox" ? false : null) : null,
    // A rejected address proves the domain is no catch-all; an accepted one leaves it to the random address's answer;
    // without a mailbox answer nobody knows.
    catch_all: confirmed
      ? mailbox.outcome === "accepted" && mailbox.catchAll === null
        ? null
        : mailbox.outcome === "catch_all"
      : null,
    smtp_reason: smtpReason,
    did_you_mean: p.typo.suggestion ? `${p.local}@${p.typo.suggestion}` : null,
  };
  const mailbox_confidence = reason === "unverified" ? mailboxConfidence(fields) : null;
  const scored = { ...fields, mailbox_confidence };
  const risk_score = riskScore(scored);
  return {
    ...scored,
    risk_score,
    risk_level: riskLevel(risk_score),
    risk_components: riskComponents(scored),
    sources: sourcesFor(p, mailbox, confirmed),
    policy: null,
  };
}

/** The verdict a handshake answer leads to. */
export function fromMailbox(
  p: Prepared,
  mailbox: MailboxAnswer,
): { verdict: Verdict; reason: Reason | null; outcome: Outcome } {
  switch (mailbox.outcome) {
    case "accepted":
      return p.role
        ? { verdict: "risky", reason: "role", outcome: "usable" }
        : { verdict: "deliverable", reason: null, outcome: "usable" };
    case "catch_all":
      return { verdict: "risky", reason: "catch_all", outcome: "usable" };
    case "no_mailbox":
      return { verdict: "undeliverable", reason: "mailbox_not_found", outcome: "undeliverable_checked" };
    // Full is a state the owner can clear: the mailbox exists, mail bounces until then.
    case "mailbox_full":
      return { verdict: "risky", reason: "mailbox_full", outcome: "usable" };
    case "mailbox_disabled":
      return { verdict: "undeliverable", reason: "mailbox_disabled", outcome: "undeliverable_checked" };
    default:
      return { verdict: "risky", reason: "unverified", outcome: "unverified" };
  }
}

export function invalidSyntax(email: string): { result: EmailResult; outcome: Outcome; observed: null; test: false } {
  const at = email.lastIndexOf("@");
  const domain = at === -1 ? "" : email.slice(at + 1);
  const result: EmailResult = {
    email,
    normalized_email: email.toLowerCase(),
    is_alias: false,
    is_gibberish: false,
    deliverable: "undeliverable",
    reason: "invalid_syntax",
    risk_score: 100,
    risk_level: "high",
    risk_components: { undeliverable: 100 },
    syntax_valid: false,
    domain,
    mx_found: false,
    mx_implicit: false,
    mx_provider: null,
    has_spf: null,
    dmarc_policy: null,
    has_dmarc: null,
    domain_registered_at: null,
    domain_age_days: null,
    disposable: false,
    role: false,
    free_provider: false,
    smtp_checked: false,
    smtp_checked_at: null,
    mailbox_exists: null,
    catch_all: null,
    smtp_reason: null,
    mailbox_confidence: null,
    did_you_mean: null,
    sources: [SYNTAX_SOURCE],
    policy: null,
  };
  return { result, outcome: "undeliverable_unchecked", observed: null, test: false };
}

/**
 * The stored verdict of an address suppressed by hand (POST /email/suppressions): nothing was looked up, so every fact
 * is unknown and the verdict is the account's own decision.
 */
export function manualSuppression(email: string, normalizedEmail: string): EmailResult {
  return {
    ...invalidSyntax(email).result,
    normalized_email: normalizedEmail,
    syntax_valid: true,
    reason: "suppressed",
    sources: [whole(SUPPRESSION_LIST, "account")],
  };
}

/**
 * The stored verdict of an address suppressed by delivery feedback (a hard bounce or a complaint the account's sending
 * reported): later batch, bulk and monitor answers give it, citing `delivery-feedback` with the day of the event.
 */
export function feedbackSuppression(
  email: string,
  normalizedEmail: string,
  reason: "bounced" | "complained",
  at: number,
): EmailResult {
  return {
    ...manualSuppression(email, normalizedEmail),
    reason,
    sources: [whole(DELIVERY_FEEDBACK, new Date(at).toISOString().slice(0, 10)), whole(SUPPRESSION_LIST, "account")],
  };
}
