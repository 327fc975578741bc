/**
 * Identifier spelling and checks for the entity product. Pure functions with no imports, so the Node importer
 * (scripts/import-register.mjs) loads this file as it is.
 */

export type IdentifierType = "lei" | "company_number";

const LEI_SHAPE = /^[A-Z0-9]{18}[0-9]{2}$/;

/** ISO 7064 MOD 97-10 remainder of an alphanumeric string read with A=10 ... Z=35, one digit at a time. */
function mod97(value: string): number {
  let remainder = 0;
  for (const char of value) {
    const digits = String(Number.parseInt(char, 36));
    for (const digit of digits) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder;
}

/** The two check digits that make `base` (18 characters) a valid LEI: 98 - (base + "00" mod 97). */
export function leiCheckDigits(base: string): string {
  return String(98 - mod97(`${base.toUpperCase()}00`)).padStart(2, "0");
}

export interface LeiReading {
  /** Upper-cased with spaces removed: the register's spelling when `wellFormed`. */
  lei: string;
  /** 18 letters or digits followed by two digits. */
  wellFormed: boolean;
  /** ISO 17442: the 20 characters, letters read as 10..35, are 1 modulo 97. */
  checksumValid: boolean;
}

/** Reads an LEI as people write it (any case, spaces or hyphens between groups). */
export function readLei(input: string): LeiReading {
  const lei = input.replace(/[\s-]+/g, "").toUpperCase();
  const wellFormed = LEI_SHAPE.test(lei);
  return { lei, wellFormed, checksumValid: wellFormed && mod97(lei) === 1 };
}

/**
 * A UK company number in Companies House spelling: upper case, no spaces, 8 characters. All-digit numbers are
 * zero-padded to 8 (`123` -> `00000123`); a two-character prefix (`SC`, `NI`, `OC`, `SO`, `R0`, ...) keeps its place
 * and the digits after it are padded to 6 (`sc1234` -> `SC001234`). Anything else is not a UK company number: null.
 */
export function normalizeUkCompanyNumber(input: string): string | null {
  const value = input.replace(/\s+/g, "").toUpperCase();
  if (/^\d{1,8}$/.test(value)) return value.padStart(8, "0");
  const prefixed = /^([A-Z]{2}|R0)(\d{1,6})$/.exec(value);
  if (prefixed) return `${prefixed[1]}${prefixed[2]!.padStart(6, "0")}`;
  return null;
}

/** How people write an LEI: 20 letters or digits once spaces and hyphens between groups are dropped. */
const LEI_CHARACTERS = /^[0-9A-Z]{20}$/;
/** A UK company number as Companies House writes it: 8 digits, or 2 letters and 6 digits (`SC001234`). */
const UK_COMPANY_SHAPE = /^(\d{8}|[A-Z]{2}\d{6})$/;

/**
 * The type of an identifier sent without one (products.md, "Entity identifiers without `type`"): what cannot be an LEI
 * (not 20 letters or digits) is never read as one; the shape of a UK company number is read as one; anything else is
 * neither (null: the answer asks for a `type`).
 */
export function typeOf(input: string): IdentifierType | null {
  if (LEI_CHARACTERS.test(input.replace(/[\s-]+/g, "").toUpperCase())) return "lei";
  if (UK_COMPANY_SHAPE.test(input.replace(/\s+/g, "").toUpperCase())) return "company_number";
  return null;
}

/** Two-letter ISO 3166-1 country code in upper case; `UK` (reserved by ISO for the United Kingdom) reads as `GB`. */
export function normalizeCountry(input: string | null | undefined): string | null {
  const value = (input ?? "").trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(value)) return null;
  return value === "UK" ? "GB" : value;
}
