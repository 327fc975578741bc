import type { PolicyDecision } from "../../engines/policy/policy";
import type { Source } from "./datasets";

/** What a mailbox handshake said about one address, fresh or remembered. */
export type MailboxOutcome =
  | "accepted"
  | "no_mailbox"
  | "mailbox_full"
  | "mailbox_disabled"
  | "catch_all"
  | "greylisted"
  | "blocked"
  | "timeout"
  | "provider_unavailable";

export type Verdict = "deliverable" | "risky" | "undeliverable";

/**
 * Every reason an answer can carry (null for a clean deliverable answer). The spec lists the first five; `mailbox_full`
 * and `mailbox_disabled` are the mailbox check's RFC 3463 x.2.2 and x.2.1 answers (risky and undeliverable); the rest
 * name the free signals and DNS facts that settle an answer before any mailbox check, and `suppressed` marks an
 * address the account put on its suppression list by hand; `bounced` and `complained` an address the account's own
 * sending reported (delivery feedback: a hard bounce, a spam complaint).
 */
export const REASONS = [
  "unverified",
  "catch_all",
  "disposable",
  "role",
  "mailbox_not_found",
  "mailbox_full",
  "mailbox_disabled",
  "invalid_syntax",
  "no_mx",
  "null_mx",
  "invalid_username",
  "typo_domain",
  "suppressed",
  "bounced",
  "complained",
] as const;

export type Reason = (typeof REASONS)[number];

/**
 * `smtp_reason` values (docs/email.md): the spec's four, the RFC 3463 mailbox states, and `blocked` (the server refused
 * the checking client itself: its HELO, its sender, its address's reputation, a per-client rate or error limit).
 */
export const SMTP_REASONS = [
  "greylisted",
  "blocked",
  "no_mailbox",
  "mailbox_full",
  "mailbox_disabled",
  "timeout",
  "provider_unavailable",
] as const;

export type SmtpReason = (typeof SMTP_REASONS)[number];

/**
 * `data` of an email lookup (spec, "Email result"), plus `risk_components` so the score can be audited line by line.
 */
export interface EmailResult {
  email: string;
  normalized_email: string;
  is_alias: boolean;
  is_gibberish: boolean;
  deliverable: Verdict;
  reason: Reason | null;
  risk_score: number;
  risk_level: "low" | "medium" | "high";
  risk_components: Record<string, number>;
  syntax_valid: boolean;
  domain: string;
  mx_found: boolean;
  mx_implicit: boolean;
  mx_provider: string | null;
  has_spf: boolean | null;
  dmarc_policy: string | null;
  /** Whether `_dmarc` holds a policy; null when the query got no answer (so `no_dmarc` is not scored). */
  has_dmarc: boolean | null;
  domain_registered_at: string | null;
  domain_age_days: number | null;
  disposable: boolean;
  role: boolean;
  free_provider: boolean;
  smtp_checked: boolean;
  smtp_checked_at: string | null;
  mailbox_exists: boolean | null;
  /** Null without a mailbox answer: only a handshake tells whether the domain takes any address. */
  catch_all: boolean | null;
  smtp_reason: SmtpReason | null;
  mailbox_confidence: number | null;
  did_you_mean: string | null;
  sources: Source[];
  /** The account's sending policy decision; null when it has none (stamped by the policy engine on every answer). */
  policy: PolicyDecision | null;
}

/**
 * How an answer bills (docs/billing.md): `usable` 1 credit; `unverified` 0; `undeliverable_checked` free within fair
 * use and counted; `undeliverable_unchecked` free and not counted; `free` (test address) 0.
 */
export type Outcome = "usable" | "unverified" | "undeliverable_checked" | "undeliverable_unchecked" | "free";
