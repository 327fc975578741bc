import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { countryCode } from "./parse";
import { ADDRESS_REASONS, COMPONENTS, DELIVERY_MATCHES, PRECISIONS, VERIFICATIONS, type AddressInput } from "./result";
import { sourcesSchema } from "../../engines/sources";

/** Request and response schemas of the address product: they validate requests and build the OpenAPI document. */

export const countrySchema = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2).")
  .transform(countryCode)
  .describe("ISO 3166-1 alpha-2; `UK` reads as `GB`.");

const part = (max: number) => z.string().max(max).nullish();

const fieldShape = { line1: part(200), line2: part(200), locality: part(100), region: part(100), postcode: part(20) };

/** An address object; `country` may come from the request's own `country` instead. */
export const looseFields = z.object({ ...fieldShape, country: countrySchema.optional() });

export const oneLine = z
  .string()
  .min(1)
  .max(500)
  .describe("The whole address on one line (commas or line breaks between its parts).");

/**
 * A union validated by the branch the value's shape picks (a string, an object with `address`, another object), so
 * errors point inside the item (`addresses.3.postcode`) rather than at a bare "invalid union"; documented as the union.
 */
function byShape<S extends z.ZodType, O extends z.ZodType, F extends z.ZodType>(
  string: S,
  oneLineObject: O,
  fields: F,
) {
  const union = z.union([string, oneLineObject, fields]);
  const { $schema: _ignored, ...documented } = z.toJSONSchema(union, { io: "input" }) as Record<string, unknown>;
  return z
    .unknown()
    .transform((value, ctx): z.output<typeof union> => {
      const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
      const branch =
        typeof value === "string" ? string : isObject ? ("address" in value ? oneLineObject : fields) : null;
      const parsed = branch?.safeParse(value);
      if (parsed?.success) return parsed.data as z.output<typeof union>;
      if (!parsed) ctx.addIssue({ code: "custom", message: "Must be an address object or a one-line address string." });
      for (const issue of parsed?.error.issues ?? [])
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    })
    .meta(documented);
}

const noString = z.never({ error: "A one-line address goes in an object with its country: {address, country}." });

/**
 * One address with its country, as the engines carry it (bulk rows after the run's `country`, monitor entries, list
 * values).
 */
export const addressInput = byShape(
  noString,
  z.object({ address: oneLine, country: countrySchema }),
  z.object({ ...fieldShape, country: countrySchema }),
) as unknown as z.ZodType<AddressInput>;

/** A row of a batch or bulk list: a one-line address (alone, or with its own country) or an object. */
export const listItem = byShape(
  oneLine,
  z.object({ address: oneLine, country: countrySchema.optional() }),
  looseFields,
);

export type ListItem = z.output<typeof listItem>;

/** The item with its country: its own, else the request's. Null when neither names one. */
export function withCountry(item: ListItem, fallback: string | null | undefined): AddressInput | null {
  if (typeof item === "string") return fallback ? { address: item, country: fallback } : null;
  const country = item.country ?? fallback;
  if (!country) return null;
  return "address" in item && typeof item.address === "string"
    ? { address: item.address, country }
    : { ...(item as z.output<typeof looseFields>), country };
}

export const NO_COUNTRY = "Give the address's `country`, or the request's `country` for every address that has none.";

const normalized = z.object({
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  locality: z.string().nullable(),
  region: z.string().nullable(),
  postcode: z.string().nullable(),
  country: z.string(),
});

export const addressResultSchema = z.object({
  input: z.union([z.string(), z.object({ ...fieldShape, country: z.string() })]),
  country: z.string(),
  valid: z.boolean(),
  verification: z.enum(VERIFICATIONS),
  precision: z.enum(PRECISIONS),
  address: normalized,
  formatted: z.string().nullable(),
  postcode_format_valid: z.boolean().nullable(),
  postcode_found: z.boolean().nullable(),
  locality_matches_postcode: z.boolean().nullable(),
  region_matches_postcode: z.boolean().nullable(),
  po_box: z.boolean(),
  corrections: z.array(z.object({ field: z.enum(COMPONENTS), from: z.string().nullable(), to: z.string() })),
  missing_components: z.array(z.enum(COMPONENTS)),
  geo: z.object({ latitude: z.number(), longitude: z.number(), precision: z.literal("postcode") }).nullable(),
  deliverable: z.boolean().nullable(),
  delivery_point: z
    .object({
      match: z.enum(DELIVERY_MATCHES),
      vacant: z.boolean().nullable(),
      residential: z.boolean().nullable(),
      standardized: z
        .object({
          line1: z.string().nullable(),
          line2: z.string().nullable(),
          locality: z.string().nullable(),
          region: z.string().nullable(),
          postcode: z.string().nullable(),
        })
        .nullable(),
      footnotes: z.array(z.string()),
    })
    .nullable(),
  reason: z.enum(ADDRESS_REASONS).nullable(),
  risk_score: z.int(),
  risk_components: z.record(z.string(), z.int()),
  risk_level: z.enum(["low", "medium", "high"]),
  sources: sourcesSchema,
  policy: policyDecisionSchema,
});

export const postcodeListingSchema = z.object({
  postcode: z.string(),
  country: z.string(),
  found: z.boolean(),
  localities: z.array(
    z.object({
      name: z.string(),
      region: z.string().nullable(),
      latitude: z.number().nullable(),
      longitude: z.number().nullable(),
    }),
  ),
  sources: sourcesSchema,
});

export const streetListingSchema = z.object({
  country: z.string(),
  postcode: z.string(),
  streets: z.array(z.object({ name: z.string(), locality: z.string().nullable() })),
  truncated: z.boolean(),
  sources: sourcesSchema,
});

/**
 * `delivery_point: true` asks a delivery-point partner (docs/address.md, "Delivery-point check"); secret-key lookups
 * only.
 */
export const deliveryPointOption = z
  .boolean()
  .default(false)
  .describe(
    "Ask the configured delivery-point partner whether mail is delivered to the address (1 more credit when it " +
      "answers; free when none does).",
  );
