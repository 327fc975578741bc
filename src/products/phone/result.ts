import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { sourcesSchema } from "../../engines/sources";

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

/** `data` of a phone answer (docs/phone.md); the OpenAPI document is built from it. */
export const phoneResultSchema = z.object({
  phone: z.string(),
  valid: z.boolean(),
  possible: z.boolean(),
  validation_error: z.enum(VALIDATION_ERRORS).nullable(),
  e164: z.string().nullable(),
  national_format: z.string().nullable(),
  international_format: z.string().nullable(),
  country: z.string().nullable(),
  calling_code: z.string().nullable(),
  line_type: z.enum(LINE_TYPES),
  carrier: z.string().nullable(),
  carrier_source: z.enum(["network", "allocation"]).nullable(),
  location: z.string().nullable(),
  timezones: z.array(z.string()).nullable(),
  disposable: z.boolean().nullable(),
  disposable_last_seen: z.string().nullable(),
  network_checked: z.boolean(),
  network_status: z.enum(NETWORK_STATUSES).nullable(),
  sim_swapped: z.boolean().nullable(),
  reason: z.enum(PHONE_REASONS).nullable(),
  risk_score: z.int(),
  risk_level: z.enum(["low", "medium", "high"]),
  risk_components: z.record(z.string(), z.int()),
  missing_datasets: z.array(z.string()),
  sources: sourcesSchema,
  policy: policyDecisionSchema,
});

/**
 * `data` of `GET /phone/block/{country}/{prefix}` (docs/phone.md, "Blocks"); empty `blocks` when the country has no
 * plan or no valid number starts with the prefix: the route answers 404.
 */
export const blockResultSchema = z.object({
  country: z.string(),
  calling_code: z.string().nullable(),
  prefix: z.string(),
  possible_lengths: z.array(z.int()),
  blocks: z.array(
    z.object({
      prefix: z.string(),
      line_type: z.enum(LINE_TYPES),
      carrier: z.string().nullable(),
      location: z.string().nullable(),
    }),
  ),
  truncated: z.boolean(),
  sources: sourcesSchema,
});

export type PhoneResult = z.output<typeof phoneResultSchema>;
export type BlockResult = z.output<typeof blockResultSchema>;
