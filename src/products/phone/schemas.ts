import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { LINE_TYPES, NETWORK_STATUSES, PHONE_REASONS, VALIDATION_ERRORS } from "./result";
import { sourcesSchema } from "../../engines/sources";

/** Request and response schemas of the phone product: they validate requests and build the OpenAPI document. */
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2).")
  .nullish()
  .describe("Region of a number written without `+` (ISO 3166-1 alpha-2).");

export const phoneObject = z.object({ phone: z.string().max(64), country });

/** `network: true` asks the live network check (docs/phone.md, "Live network check"); secret-key lookups only. */
export const networkOption = z
  .boolean()
  .default(false)
  .describe(
    "Run the live carrier-network check through the configured partner (1 more credit when it answers; free when " +
      "none does).",
  );

/** One number: a string (with `+`, or it answers INVALID_COUNTRY) or `{phone, country}`. */
export const phoneItem = z.union([z.string().max(64), phoneObject]);

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

/** `POST /phone`: one number and the lookup's options. */
export const phoneRequest = phoneObject.extend({ network: networkOption });

/** `POST /phone/batch`: 1 to 1,000 numbers and the options every item shares. */
export const phoneBatchRequest = z.object({ phones: z.array(phoneItem).min(1).max(1_000), network: networkOption });
