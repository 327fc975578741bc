import { z } from "zod";
import { isCountry } from "../postcodes";
import { countrySchema } from "../schemas";
import { sourcesSchema } from "../../../engines/sources";

/** The answer of one autocomplete request and the request's fields (products.md, "Fifth wave"; docs/address.md). */

export const PRECISIONS = ["premise", "street", "postcode"] as const;
export const REASONS = ["not_covered", "too_short"] as const;

export const suggestionSchema = z.object({
  text: z.string().describe("The suggestion on one line, as a field would show it."),
  line1: z.string().nullable().describe("House number and street; null for a postcode suggestion."),
  locality: z.string().nullable(),
  region: z.string().nullable(),
  postcode: z.string().describe("The postcode (Great Britain's street suggestions: the postcode district)."),
  country: z.string(),
  precision: z
    .enum(PRECISIONS)
    .describe("`premise`: the house number is listed on the street; `street`; `postcode`: a postcode and its place."),
  id: z.string().describe("Stable while the datasets' generation is: the same suggestion has the same id."),
});

export const autocompleteResultSchema = z.object({
  suggestions: z.array(suggestionSchema),
  reason: z
    .enum(REASONS)
    .nullable()
    .describe("`not_covered`: no installed dataset covers the country; `too_short`: fewer than 3 characters. Free."),
  sources: sourcesSchema,
});

export type Suggestion = z.output<typeof suggestionSchema>;
export type AutocompleteResult = z.output<typeof autocompleteResultSchema>;

/** A country a request may name: a real ISO 3166-1 code, or `ZZ` (the test values'); anything else is a 422. */
export const autocompleteCountry = countrySchema.refine(
  (code) => code === "ZZ" || isCountry(code),
  "Not an ISO 3166-1 alpha-2 country code.",
);

export const autocompleteInput = z.object({
  q: z.string().min(1).max(200).describe("What the visitor typed so far (1-200 characters)."),
  country: autocompleteCountry,
  limit: z.coerce.number().int().min(1).max(10).default(5).describe("At most this many suggestions (1-10)."),
});

export type AutocompleteInput = z.output<typeof autocompleteInput>;
