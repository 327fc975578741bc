import { z } from "zod";
import { sourcesSchema } from "../../engines/sources";

/**
 * Why an answer has `found: false`, or, on a found one, that a sample decided it (null otherwise):
 * - `unknown_identifier`: the register is installed and does not carry the identifier, or the LEI is malformed (wrong
 *   shape or wrong ISO 17442 check digits: `checksum_valid: false`, the register is not consulted) (billed 0)
 * - `invalid_identifier`: a company number that is not the shape of one, or a value sent without `type` that is the
 *   shape of neither an LEI nor a UK company number, and with no `country` or a supported one (billed 0)
 * - `unsupported_register`: no register here holds company numbers of that country: with `type: company_number`, or
 *   without a `type` for any value but an LEI's 20 characters (billed 0)
 * - `register_not_installed`: the register exists but no file of it is loaded (billed 0)
 * - `sample_data`: found, in a register installed as a synthetic sample (coverage `sample`), billed as found
 */
export const ENTITY_REASONS = [
  "unknown_identifier",
  "invalid_identifier",
  "unsupported_register",
  "register_not_installed",
  "sample_data",
] as const;
export type EntityReason = (typeof ENTITY_REASONS)[number];

export type EntityFlag = "dissolved_in_national_register";

/**
 * `data` of an entity answer (spec, "Entity result"); the OpenAPI document is built from it. No registered address is
 * stored or returned.
 */
export const entityResultSchema = z.object({
  identifier: z.string(),
  identifier_type: z.enum(["lei", "company_number"]),
  found: z.boolean(),
  reason: z.enum(ENTITY_REASONS).nullable(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  status_detail: z.string().nullable(),
  country: z.string().nullable(),
  checksum_valid: z.boolean().nullable(),
  registration_status: z.string().nullable(),
  flags: z.array(z.enum(["dissolved_in_national_register"] satisfies EntityFlag[])),
  sources: sourcesSchema,
});

export type EntityResult = z.output<typeof entityResultSchema>;
