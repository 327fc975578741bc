import type { PolicyDecision } from "../../engines/policy/policy";

/** Why a phone answer is not clean (null when it is). Precedence: invalid_number, suppressed, disposable, premium_rate. */
export const PHONE_REASONS = ["invalid_number", "disposable", "premium_rate", "undelivered", "suppressed"] as const;
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

export const VALIDATION_ERRORS = ["TOO_SHORT", "TOO_LONG", "INVALID_LENGTH", "INVALID_COUNTRY", "NOT_A_NUMBER"] as const;
export type ValidationError = (typeof VALIDATION_ERRORS)[number];

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
  /** The original allocation holder of the number's range (porting is not known). */
  carrier: string | null;
  location: string | null;
  timezones: string[] | null;
  /** Seen on a public receive-SMS site; null when the disposable list is not installed. */
  disposable: boolean | null;
  /** The last day the list saw the number there (YYYY-MM-DD). */
  disposable_last_seen: string | null;
  /** No live carrier-network check exists: always false / null. */
  network_checked: false;
  network_status: null;
  reason: PhoneReason | null;
  risk_score: number;
  risk_level: "low" | "medium" | "high";
  risk_components: Record<string, number>;
  /** Datasets this answer would have read that are not installed, so their fields are null. */
  missing_datasets: string[];
  sources: { dataset: string; version: string }[];
  /** The account's sending policy decision; null when it has none (stamped by the policy engine on every answer). */
  policy: PolicyDecision | null;
}
