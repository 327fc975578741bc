import { z } from "zod";
import { sourcesSchema } from "../../engines/sources";

export const SIGNAL_NAMES = ["email", "phone", "ip", "address", "entity"] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

/** Every named check, in the order answers list them (docs/consistency.md, "Checks"). */
export const CHECK_NAMES = [
  "phone_country_matches_ip_country",
  "phone_country_matches_address_country",
  "ip_country_matches_address_country",
  "entity_country_matches_address_country",
  "entity_country_matches_phone_country",
  "entity_country_matches_ip_country",
  "email_tld_country_matches_address_country",
  "email_domain_resembles_entity_name",
  "email_is_business_for_entity",
  "address_postcode_matches_locality",
  "ip_not_anonymous",
  "phone_line_not_virtual",
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CHECK_RESULTS = ["agree", "disagree", "unknown", "not_applicable"] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

export const LEVELS = ["consistent", "mixed", "inconsistent"] as const;
export type Level = (typeof LEVELS)[number];

export const LINE_TYPE_SOURCES = ["network", "numbering_plan"] as const;

export type FieldValue = string | boolean | null;

const country = z.string().nullable();

/** The fields of each signal the checks read (null: the signal was not given). */
export const signalsSchema = z.object({
  email: z
    .object({
      email: z.string(),
      valid: z.boolean(),
      domain: z.string().nullable(),
      tld_country: country,
      free_provider: z.boolean(),
      disposable: z.boolean(),
    })
    .nullable(),
  phone: z
    .object({
      phone: z.string(),
      valid: z.boolean(),
      e164: z.string().nullable(),
      country,
      line_type: z.string(),
      line_type_source: z
        .enum(LINE_TYPE_SOURCES)
        .describe("`network` when a network partner reported the line type (`network: true`), else `numbering_plan`."),
    })
    .nullable(),
  ip: z
    .object({
      ip: z.string(),
      valid: z.boolean(),
      reserved: z.boolean(),
      placed: z.boolean(),
      country,
      anonymous: z.boolean().nullable(),
      tor: z.boolean().nullable(),
      hosting: z.boolean().nullable(),
    })
    .nullable(),
  address: z
    .object({
      country: z.string(),
      country_supported: z.boolean(),
      postcode: z.string().nullable(),
      locality: z.string().nullable(),
      postcode_found: z.boolean().nullable(),
      locality_matches_postcode: z.boolean().nullable(),
    })
    .nullable(),
  entity: z.object({ identifier: z.string(), found: z.boolean(), name: z.string().nullable(), country }).nullable(),
});

export const checkSchema = z.object({
  name: z.enum(CHECK_NAMES),
  result: z.enum(CHECK_RESULTS),
  weight: z.int(),
  decided_by: z
    .record(z.string(), z.union([z.string(), z.boolean(), z.null()]))
    .describe('Each signal field the check read, by `signal.field`: `{"phone.country": "GB", "ip.country": "FR"}`.'),
  reason: z.string(),
});

/** `data` of a consistency answer (docs/consistency.md lists every field); the OpenAPI document is built from it. */
export const consistencyResultSchema = z.object({
  signals: signalsSchema,
  checks: z.array(checkSchema),
  agreements: z.array(z.enum(CHECK_NAMES)),
  disagreements: z.array(z.enum(CHECK_NAMES)),
  score: z
    .int()
    .nullable()
    .describe("round(100 * sum(weight of agree) / sum(weight of agree + disagree)); null when no check was decided."),
  level: z.enum(LEVELS).nullable(),
  risk_score: z.int(),
  risk_level: z.enum(["low", "medium", "high"]),
  risk_components: z.record(z.string(), z.int()),
  reason: z
    .enum(["partner_unavailable", "sample_data"])
    .nullable()
    .describe(
      "`partner_unavailable` when `network: true` was asked and no network partner answered: the call is free; " +
        "else `sample_data` when a signal's own answer was decided by a synthetic sample (its reason says so).",
    ),
  sources: sourcesSchema,
});

export type Signals = z.output<typeof signalsSchema>;
export type Check = z.output<typeof checkSchema>;
export type ConsistencyResult = z.output<typeof consistencyResultSchema>;
