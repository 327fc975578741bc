import type { Source } from "../../engines/sources";
import type { IdentifierType } from "./identifiers";

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
export type EntityReason =
  | "unknown_identifier"
  | "invalid_identifier"
  | "unsupported_register"
  | "register_not_installed"
  | "sample_data";

export const ENTITY_REASONS: readonly EntityReason[] = [
  "unknown_identifier",
  "invalid_identifier",
  "unsupported_register",
  "register_not_installed",
  "sample_data",
];

export type EntityFlag = "dissolved_in_national_register";

/** `data` of an entity answer (spec, "Entity result"). No registered address is stored or returned. */
export interface EntityResult {
  /** The register's spelling (LEI upper case; UK company number padded to 8), or the input trimmed when malformed. */
  identifier: string;
  identifier_type: IdentifierType;
  found: boolean;
  reason: EntityReason | null;
  name: string | null;
  /** `active`, `dissolved` or another lowercase word the register uses; null when not found. */
  status: string | null;
  /** The register's own status wording (company numbers); null on LEI answers. */
  status_detail: string | null;
  /** Two letters: the legal address country (LEI) or the register's country (company number). */
  country: string | null;
  /** LEI answers: whether the check digits are right; null on company-number answers. */
  checksum_valid: boolean | null;
  /** LEI answers: ISSUED, LAPSED, RETIRED, ...; null otherwise. */
  registration_status: string | null;
  flags: EntityFlag[];
  /** Every register consulted, with the version of its loaded file (spec, "What the service does" 2). */
  sources: Source[];
}
