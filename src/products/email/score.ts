import { riskLevel, riskScoreOf } from "../risk";
/**
 * The documented, recomputable scores (docs/email-scores.md). Every input is a field of the answer, so anyone holding
 * an answer can recompute `risk_score`, `risk_level` and `mailbox_confidence` from it.
 */
export interface ScoreInputs {
  deliverable: "deliverable" | "risky" | "undeliverable";
  reason: string | null;
  disposable: boolean;
  role: boolean;
  catch_all: boolean | null;
  is_gibberish: boolean;
  did_you_mean: string | null;
  domain_age_days: number | null;
  has_spf: boolean | null;
  dmarc_policy: string | null;
  has_dmarc: boolean | null;
  mx_provider: string | null;
  smtp_reason: string | null;
  mailbox_confidence: number | null;
}

/** Mail providers whose servers answer RCPT honestly, so an address there that cannot be checked now usually exists. */
const MAJOR_PROVIDERS = new Set([
  "google",
  "microsoft",
  "yahoo",
  "icloud",
  "zoho",
  "fastmail",
  "proton",
  "yandex",
  "gmx",
  "mailru",
]);

export const round2 = (x: number) => Math.round(x * 100) / 100;

/** Chance that an address whose mailbox could not be checked exists; only set on unverified answers. */
export function mailboxConfidence(a: Omit<ScoreInputs, "mailbox_confidence" | "deliverable" | "reason">): number {
  let confidence = 0.5;
  if (a.mx_provider !== null && MAJOR_PROVIDERS.has(a.mx_provider)) confidence += 0.15;
  if (a.has_spf) confidence += 0.05;
  if (a.dmarc_policy !== null) confidence += 0.05;
  if (a.smtp_reason === "greylisted") confidence += 0.1;
  if (a.role) confidence += 0.05;
  if (a.is_gibberish) confidence -= 0.25;
  if (a.did_you_mean !== null) confidence -= 0.2;
  if (a.domain_age_days !== null && a.domain_age_days < 180) confidence -= 0.1;
  return round2(Math.min(0.95, Math.max(0.05, confidence)));
}

/** Points per risk signal present in the answer; the score is their sum, capped at 100. */
export function riskComponents(a: ScoreInputs): Record<string, number> {
  if (a.deliverable === "undeliverable") return { undeliverable: 100 };
  const parts: Record<string, number> = {};
  // A known misspelling's domain is often on the disposable list too: one domain, one finding, scored once.
  if (a.disposable && a.reason !== "typo_domain") parts.disposable = 90;
  if (a.reason === "typo_domain") parts.typo_domain = 60;
  else if (a.did_you_mean !== null) parts.did_you_mean = 20;
  if (a.catch_all) parts.catch_all = 35;
  // A full mailbox exists but bounces everything until its owner makes room.
  if (a.reason === "mailbox_full") parts.mailbox_full = 50;
  if (a.reason === "unverified" && a.mailbox_confidence !== null)
    parts.unverified = Math.round(60 * (1 - a.mailbox_confidence));
  if (a.role) parts.role = 25;
  if (a.is_gibberish) parts.gibberish = 15;
  if (a.domain_age_days !== null && a.domain_age_days < 30) parts.new_domain = 20;
  else if (a.domain_age_days !== null && a.domain_age_days < 180) parts.young_domain = 10;
  if (a.has_spf === false) parts.no_spf = 5;
  // Only facts that were observed count: a DNS question without an answer adds nothing (has_spf, has_dmarc null).
  if (a.has_dmarc === false) parts.no_dmarc = 5;
  return parts;
}

export function riskScore(a: ScoreInputs): number {
  return riskScoreOf(riskComponents(a));
}

export { riskLevel };
