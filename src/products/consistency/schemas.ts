import { z } from "zod";
import type { ConsistencyDeps } from "./deps";
import { CHECK_NAMES, CHECK_RESULTS, LEVELS, LINE_TYPE_SOURCES, SIGNAL_NAMES, type ConsistencyInput } from "./result";
import { sourcesSchema } from "../../engines/sources";

/** Request and response schemas of the consistency product: they validate requests and build the OpenAPI document. */

/**
 * Two or more signals: the body of `POST /consistency`, a row of a bulk run. Each value is validated by its product's
 * schema.
 */
export function consistencyInputSchema(
  deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">,
): z.ZodType<ConsistencyInput> {
  return signalsObject(deps, {});
}

/** `network` on `POST /consistency`: the phone signal's live network check (docs/consistency.md, "Live line type"). */
const networkOption = z
  .boolean()
  .default(false)
  .describe(
    "Run the phone signal's live network check through the configured partner: 1 more credit when it " +
      "answers, the whole call free with `reason: partner_unavailable` when none does.",
  );

/** The body of `POST /consistency`: the signals and the `network` option (a bulk row is the signals alone). */
export function consistencyRequestSchema(deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">) {
  return signalsObject(deps, { network: networkOption }) as z.ZodType<ConsistencyInput & { network: boolean }>;
}

function signalsObject<Extra extends z.ZodRawShape>(
  deps: Pick<ConsistencyDeps, "phone" | "address" | "entityObject">,
  extra: Extra,
) {
  const signalFields = {
    email: z.string().max(254).nullish().describe("An email address (answered without the mailbox handshake)."),
    phone: deps.phone.input.nullish().describe("A phone number: a string with `+`, or `{phone, country}`."),
    ip: z.string().max(100).nullish().describe("An IPv4 or IPv6 address."),
    address: deps.address.input
      .nullish()
      .describe("A postal address object with its `country` (or `{address, country}`)."),
    entity: deps.entityObject
      .nullish()
      .describe("A company identifier: `{identifier, type, country}` (type `lei` or `company_number`)."),
  };
  return z
    .object({ ...signalFields, ...extra })
    .refine((body: Record<string, unknown>) => SIGNAL_NAMES.filter((name) => body[name] != null).length >= 2, {
      message: `Give two or more of ${SIGNAL_NAMES.join(", ")}.`,
    });
}

const country = z.string().nullable();

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
