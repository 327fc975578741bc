import type { Source } from "../../engines/sources";
import type { PolicyDecision } from "../../engines/policy/policy";

/**
 * Why a phone answer is not clean (null when it is). Precedence: invalid_number, partner_unavailable, inactive,
 * (undelivered, suppressed on stored answers), disposable, premium_rate.
 */
export const PHONE_REASONS = [
  "invalid_number",
  "disposable",
  "premium_rate",
  "undelivered",
  "suppressed",
  "partner_unavailable",
  "inactive",
  "sample_data",
] as const;
export type PhoneReason = (typeof PHONE_REASONS)[number];

export const LINE_TYPES = [
  "mobile",
  "fixed_line",
  "fixed_line_or_mobile",
  "voip",
  "toll_free",
  "premium_rate",
  "shared_cost",
  "personal_number",
  "pager",
  "uan",
  "voicemail",
  "unknown",
] as const;
export type LineType = (typeof LINE_TYPES)[number];

export const VALIDATION_ERRORS = [
  "TOO_SHORT",
  "TOO_LONG",
  "INVALID_LENGTH",
  "INVALID_COUNTRY",
  "NOT_A_NUMBER",
] as const;
export type ValidationError = (typeof VALIDATION_ERRORS)[number];

export const NETWORK_STATUSES = ["active", "inactive", "unknown"] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/** `data` of a phone answer (docs/phone.md). */
export interface PhoneResult {
  /** The input cleaned of wrappers (spaces, dots, dashes, brackets, `tel:`). */
  phone: string;
  valid: boolean;
  possible: boolean;
  validation_error: ValidationError | null;
  e164: string | null;
  national_format: string | null;
  international_format: string | null;
  country: string | null;
  calling_code: string | null;
  line_type: LineType;
  /** The original allocation holder of the number's range, or, checked, the network holding it now. */
  carrier: string | null;
  /** `network` (a partner named the current network), `allocation` (the prefix table), null without a carrier. */
  carrier_source: "network" | "allocation" | null;
  location: string | null;
  timezones: string[] | null;
  /** Seen on a public receive-SMS site; null when the disposable list is not installed. */
  disposable: boolean | null;
  /** The last day the list saw the number there (YYYY-MM-DD). */
  disposable_last_seen: string | null;
  /** A network partner answered for this number (`network: true`). */
  network_checked: boolean;
  network_status: NetworkStatus | null;
  /** Checked with a partner reporting SIM swaps: a swap in its recent period; else null. */
  sim_swapped: boolean | null;
  reason: PhoneReason | null;
  risk_score: number;
  risk_level: "low" | "medium" | "high";
  risk_components: Record<string, number>;
  /** Datasets this answer would have read that are not installed, so their fields are null. */
  missing_datasets: string[];
  sources: Source[];
  /** The account's sending policy decision; null when it has none (stamped by the policy engine on every answer). */
  policy: PolicyDecision | null;
}
