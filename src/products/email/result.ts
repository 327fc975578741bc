import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { sourcesSchema } from "../../engines/sources";

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

/** A DMARC record's `p=` (RFC 7489 6.3); other words read as no policy. */
export const DMARC_POLICIES = ["none", "quarantine", "reject"] as const;
export type DmarcPolicy = (typeof DMARC_POLICIES)[number];

const VERDICTS = ["deliverable", "risky", "undeliverable"] as const;
export type Verdict = (typeof VERDICTS)[number];

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
 * `data` of an email lookup (spec, "Email result"), plus `risk_components` so the score can be audited line by line;
 * the OpenAPI document is built from it (docs/email.md describes each field).
 */
export const emailResultSchema = z.object({
  email: z.string(),
  normalized_email: z.string(),
  is_alias: z.boolean(),
  is_gibberish: z.boolean(),
  deliverable: z.enum(VERDICTS),
  reason: z.enum(REASONS).nullable(),
  risk_score: z.int().min(0).max(100),
  risk_level: z.enum(["low", "medium", "high"]),
  risk_components: z.record(z.string(), z.int()),
  syntax_valid: z.boolean(),
  domain: z.string(),
  mx_found: z.boolean(),
  mx_implicit: z.boolean(),
  mx_provider: z.string().nullable(),
  has_spf: z.boolean().nullable(),
  dmarc_policy: z.enum(DMARC_POLICIES).nullable(),
  has_dmarc: z.boolean().nullable(),
  domain_registered_at: z.iso.date().nullable(),
  domain_age_days: z.int().nullable(),
  disposable: z.boolean(),
  role: z.boolean(),
  free_provider: z.boolean(),
  smtp_checked: z.boolean(),
  smtp_checked_at: z.iso.datetime().nullable(),
  mailbox_exists: z.boolean().nullable(),
  catch_all: z.boolean().nullable(),
  smtp_reason: z.enum(SMTP_REASONS).nullable(),
  mailbox_confidence: z.number().min(0).max(1).nullable(),
  did_you_mean: z.string().nullable(),
  sources: sourcesSchema,
  policy: policyDecisionSchema,
});

/** `data` of a domain lookup. */
export const domainResultSchema = z.object({
  domain: z.string(),
  valid: z.boolean(),
  mx_found: z.boolean().nullable(),
  mx_implicit: z.boolean().nullable(),
  null_mx: z.boolean().nullable(),
  catch_all: z.boolean().nullable(),
  mx_provider: z.string().nullable(),
  has_spf: z.boolean().nullable(),
  dmarc_policy: z.string().nullable(),
  domain_registered_at: z.iso.date().nullable(),
  domain_age_days: z.int().nullable(),
  disposable: z.boolean().nullable(),
  free_provider: z.boolean().nullable(),
  sources: sourcesSchema.nullable(),
});

export type EmailResult = z.output<typeof emailResultSchema>;

/** `data` of `GET /email/domain/{domain}` (spec, "Domain intelligence"). */
export type DomainResult = z.output<typeof domainResultSchema>;

/**
 * How an answer bills (docs/billing.md): `usable` 1 credit; `unverified` 0; `undeliverable_checked` free within fair
 * use and counted; `undeliverable_unchecked` free and not counted; `free` (test address) 0.
 */
export type Outcome = "usable" | "unverified" | "undeliverable_checked" | "undeliverable_unchecked" | "free";
