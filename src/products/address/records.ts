/**
 * The records an address dataset holds, as the importer posts them and the stores write them, and how a publisher's
 * file is read into them. Types only: datasets.ts and file-formats.ts both name them, and Node loads all three as
 * they are (scripts/lib/ts-imports.mjs).
 */

/** One postcode and one of its localities (several rows per postcode when it serves several places). */
export interface PostcodeRow {
  country: string;
  /** The postcode in the country's canonical spelling (postcodes.ts `canonicalPostcode`). */
  postcode: string;
  /** Null when the dataset names no place for its postcodes (ONSPD). */
  locality: string | null;
  /** First-level division (US state, French région, UK constituent country) and its code. */
  region: string | null;
  region_code: string | null;
  /** Second-level division where the dataset has one (French département, English region, UK council area). */
  subregion: string | null;
  subregion_code: string | null;
  latitude: number | null;
  longitude: number | null;
  /** An accepted name that the postcode listing does not show (a commune déléguée, a district council name). */
  alias: boolean;
}

/** A street named in a postcode (UK: the postcode district, `SW1A`). */
export interface StreetRow {
  country: string;
  postcode: string;
  street: string;
  locality: string | null;
}

/** A house number a street register lists on a street of a postcode (the BAN: one per address). */
export interface PremiseRow {
  country: string;
  postcode: string;
  street: string;
  /** `premiseNumber`'s spelling (file-formats.ts): `12`, `12 BIS`, `3 A`. */
  number: string;
}

export interface ParsedRecord {
  postcodes?: PostcodeRow[];
  streets?: StreetRow[];
  premises?: PremiseRow[];
}

/** How an operator's download is read: a CSV with its own delimiter, with a header row or with fixed columns. */
export interface FileFormat {
  delimiter: "," | ";";
  /** The column names of the files; `header: false` files carry none and are read by position. */
  columns: readonly string[];
  header: boolean;
  parse(fields: Record<string, string>): ParsedRecord | null;
  /** The publication date a published file's name carries (YYYY-MM-DD), if any. */
  versionFromFileName(fileName: string): string | null;
}
