import { z } from "zod";
import { policyDecisionSchema } from "../../engines/policy/policy";
import { sourcesSchema } from "../../engines/sources";
import type { DeliveryMatch } from "../../platform/partners/types";

/** An address as an object; only `country` is required (ISO 3166-1 alpha-2): the schema below. */
export type AddressFields = z.output<typeof addressFieldsSchema>;

/** An address written on one line (or several, separated by commas or line breaks), with its country given apart. */
export type OneLineAddress = z.output<typeof oneLineAddressSchema>;

/** One address as the engines carry it: batch items, bulk rows and monitor entries are one of these. */
export type AddressInput = AddressFields | OneLineAddress;

export const isOneLine = (input: AddressInput): input is OneLineAddress =>
  typeof (input as OneLineAddress).address === "string";

export const VERIFICATIONS = ["verified", "format_only", "invalid"] as const;

export const PRECISIONS = ["none", "country", "postcode", "locality", "street", "premise"] as const;
export type Precision = (typeof PRECISIONS)[number];

/**
 * Why an answer is not a clean `verified` one (docs/address.md), first that applies:
 * `unsupported_country`, `invalid_postcode_format`, `unknown_postcode`, `locality_mismatch`, `region_mismatch`,
 * `missing_components`; on the stored answer of a suppressed address, `suppressed` (by hand), or `returned` or
 * `undeliverable` (by delivery feedback).
 */
export const ADDRESS_REASONS = [
  "unsupported_country",
  "invalid_postcode_format",
  "unknown_postcode",
  "locality_mismatch",
  "region_mismatch",
  "missing_components",
  "no_delivery_point",
  "not_covered",
  "partner_unavailable",
  "suppressed",
  "returned",
  "undeliverable",
  "sample_data",
] as const;
export type AddressReason = (typeof ADDRESS_REASONS)[number];

export const COMPONENTS = ["line1", "locality", "region", "postcode"] as const;
export type Component = (typeof COMPONENTS)[number];

export const DELIVERY_MATCHES = [
  "confirmed",
  "confirmed_secondary_ignored",
  "missing_secondary",
  "not_confirmed",
] as const satisfies readonly DeliveryMatch[];

const part = (max: number) => z.string().max(max).nullish();

/** The parts of an address object (`country` apart: its rule differs between requests and answers). */
export const fieldShape = {
  line1: part(200),
  line2: part(200),
  locality: part(100),
  region: part(100),
  postcode: part(20),
};

/** The two shapes of one address; request schemas (schemas.ts) extend them with the country's and line's checks. */
export const addressFieldsSchema = z.object({ ...fieldShape, country: z.string() });
export const oneLineAddressSchema = z.object({ address: z.string(), country: z.string() });

const normalized = z.object({
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  locality: z.string().nullable(),
  region: z.string().nullable(),
  postcode: z.string().nullable(),
  country: z.string(),
});

/** `data` of an address answer (docs/address.md lists every field); the OpenAPI document is built from it. */
export const addressResultSchema = z.object({
  input: z.union([z.string(), addressFieldsSchema]),
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

export type AddressResult = z.output<typeof addressResultSchema>;
export type NormalizedAddress = AddressResult["address"];
export type Correction = AddressResult["corrections"][number];
export type PostcodeListing = z.output<typeof postcodeListingSchema>;
export type StreetListing = z.output<typeof streetListingSchema>;
