import type { Coverage } from "../../db/coverage";
import { normalizeCountry, normalizeUkCompanyNumber, readLei, type IdentifierType } from "./identifiers";

/**
 * The registers the entity product answers from. Each one is synced locally from its published bulk file
 * (scripts/import-register.mjs -> /admin/v1/registers) into `register_entities`. Adding a national register means one
 * more entry here (and in REGISTER_NAMES): its name, the country whose company numbers it holds, its spelling of an
 * identifier and how to read a row of its file. This file only imports ./identifiers, so Node loads it as is.
 */

export const REGISTER_NAMES = ["gleif-lei", "uk-companies-house"] as const;

export type RegisterName = (typeof REGISTER_NAMES)[number];

/** One stored record: never an address. */
export interface RegisterRow {
  /** In the register's own spelling (Register.normalize). */
  identifier: string;
  name: string | null;
  /** `active`, `dissolved`, or another lowercase word (`inactive`, `liquidation`, `insolvency`, ...). */
  status: string;
  /** The register's own status wording (company-number registers). */
  status_detail: string | null;
  country: string | null;
  /** LEI records: ISSUED, LAPSED, RETIRED, ... */
  registration_status: string | null;
  /** LEI records: the national register the record points to (a register name here, else the GLEIF RA code). */
  linked_register: string | null;
  linked_identifier: string | null;
}

export interface Register {
  name: RegisterName;
  identifierType: IdentifierType;
  /** Countries whose company numbers this register holds; empty for a global register (LEI). */
  countries: readonly string[];
  /**
   * What the publisher's whole file covers, recorded by the importer on install (src/db/coverage.ts); a sample or a
   * part of the file is recorded as such instead, and then an identifier it lacks is `register_not_installed`.
   */
  coverage: Coverage;
  /** The header names `parseRow` reads (headers are trimmed first); every other column of the file is never read. */
  columns: readonly string[];
  /** The register's spelling of an identifier, or null when the input cannot be one of its identifiers. */
  normalize(identifier: string): string | null;
  /** One row of the published file (only `columns`), or null when the row has no usable identifier. */
  parseRow(fields: Record<string, string>): RegisterRow | null;
  /** The publication date (YYYY-MM-DD) a published file's name carries, if it carries one. */
  versionFromFileName(fileName: string): string | null;
}

/** GLEIF registration authority codes of the national registers we hold (GLEIF RA list). */
export const REGISTRATION_AUTHORITIES: Readonly<Record<string, RegisterName>> = {
  RA000585: "uk-companies-house",
};

const text = (value: string | undefined) => {
  const trimmed = (value ?? "").trim();
  return trimmed === "" ? null : trimmed;
};

/** The first date in a file name, as `20260801-0800-gleif-goldencopy-...` or `BasicCompanyData-2026-08-01-part1_7`. */
function dateInFileName(fileName: string): string | null {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const match = /(?:^|\D)(20\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?:\D|$)/.exec(base);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}

const GLEIF_ENTITY_STATUS: Record<string, string> = { ACTIVE: "active", INACTIVE: "inactive", NULL: "unknown" };

/** GLEIF LEI-CDF v3.1 golden copy, CSV edition (one row per LEI, ~340 columns of which these are read). */
export const gleifLei: Register = {
  name: "gleif-lei",
  identifierType: "lei",
  countries: [],
  coverage: { kind: "full", note: "GLEIF's golden copy: every LEI ever issued, with its registration status." },
  columns: [
    "LEI",
    "Entity.LegalName",
    "Entity.LegalAddress.Country",
    "Entity.EntityStatus",
    "Registration.RegistrationStatus",
    "Entity.RegistrationAuthority.RegistrationAuthorityID",
    "Entity.RegistrationAuthority.RegistrationAuthorityEntityID",
  ],
  normalize(identifier) {
    const reading = readLei(identifier);
    return reading.wellFormed ? reading.lei : null;
  },
  parseRow(fields) {
    const lei = readLei(fields["LEI"] ?? "");
    if (!lei.wellFormed) return null;
    const entityStatus = (fields["Entity.EntityStatus"] ?? "").trim().toUpperCase();
    const authority = text(fields["Entity.RegistrationAuthority.RegistrationAuthorityID"])?.toUpperCase() ?? null;
    const authorityEntityId = text(fields["Entity.RegistrationAuthority.RegistrationAuthorityEntityID"]);
    const linkedRegister = authority ? (REGISTRATION_AUTHORITIES[authority] ?? authority) : null;
    const known = linkedRegister && isRegisterName(linkedRegister) ? REGISTERS[linkedRegister] : null;
    const linkedIdentifier =
      authorityEntityId === null ? null : known ? known.normalize(authorityEntityId) : authorityEntityId;
    return {
      identifier: lei.lei,
      name: text(fields["Entity.LegalName"]),
      status: GLEIF_ENTITY_STATUS[entityStatus] ?? (entityStatus.toLowerCase() || "unknown"),
      status_detail: null,
      country: normalizeCountry(fields["Entity.LegalAddress.Country"]),
      registration_status: text(fields["Registration.RegistrationStatus"])?.toUpperCase() ?? null,
      linked_register: linkedIdentifier ? linkedRegister : null,
      linked_identifier: linkedIdentifier,
    };
  },
  versionFromFileName: dateInFileName,
};

/** Companies House status wording -> the normalised word; anything else is lower-cased as it stands. */
function ukStatus(companyStatus: string, dissolutionDate: string | null): string {
  const wording = companyStatus.toLowerCase();
  if (dissolutionDate || wording.startsWith("dissolved")) return "dissolved";
  if (wording.startsWith("active")) return "active";
  if (wording.includes("liquidation")) return "liquidation";
  if (/administ|receiv|voluntary arrangement|insolvency/.test(wording)) return "insolvency";
  return wording.replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "") || "unknown";
}

/**
 * Companies House "Free Company Data Product" (BasicCompanyData CSV). Its headers carry stray leading spaces
 * (` CompanyNumber`), hence trimmed headers. The many RegAddress.* columns are never read.
 */
export const ukCompaniesHouse: Register = {
  name: "uk-companies-house",
  identifierType: "company_number",
  countries: ["GB"],
  coverage: {
    kind: "full",
    countries: ["GB"],
    note: "Companies House's monthly product: every live company (dissolved ones leave it).",
  },
  columns: ["CompanyName", "CompanyNumber", "CompanyStatus", "DissolutionDate"],
  normalize: normalizeUkCompanyNumber,
  parseRow(fields) {
    const identifier = normalizeUkCompanyNumber(fields["CompanyNumber"] ?? "");
    if (!identifier) return null;
    const companyStatus = text(fields["CompanyStatus"]);
    const dissolutionDate = text(fields["DissolutionDate"]);
    return {
      identifier,
      name: text(fields["CompanyName"]),
      status: ukStatus(companyStatus ?? "", dissolutionDate),
      status_detail: companyStatus ?? (dissolutionDate ? "Dissolved" : null),
      country: "GB",
      registration_status: null,
      linked_register: null,
      linked_identifier: null,
    };
  },
  versionFromFileName: dateInFileName,
};

export const REGISTERS: Readonly<Record<RegisterName, Register>> = {
  "gleif-lei": gleifLei,
  "uk-companies-house": ukCompaniesHouse,
};

export const isRegisterName = (name: string): name is RegisterName =>
  (REGISTER_NAMES as readonly string[]).includes(name);

/** The register that holds identifiers of this type (and country, for company numbers); null when none does. */
export function registerFor(type: IdentifierType, country: string | null): Register | null {
  return (
    Object.values(REGISTERS).find(
      (register) =>
        register.identifierType === type &&
        (type === "lei" || (country !== null && register.countries.includes(country))),
    ) ?? null
  );
}
