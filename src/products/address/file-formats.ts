/**
 * How the registers an operator downloads are read: one FileFormat per publisher's file (ONSPD, OS Open Names, the
 * BAN), named by ADDRESS_DATASETS (datasets.ts), and the spellings they share (UK postcodes, house numbers). It
 * imports types only, so Node loads it as it is (through scripts/lib/ts-imports.mjs, as datasets.ts imports it).
 */
import type { FileFormat } from "./records";

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
export const onspd: FileFormat = {
  delimiter: ",",
  header: true,
  columns: ["pcds", "doterm", "ctry", "rgn", "lat", "long"],
  parse(fields) {
    const pcds = text(fields.pcds);
    if (!pcds || text(fields.doterm)) return null;
    const postcode = ukPostcode(pcds);
    const ctry = text(fields.ctry);
    const rgn = text(fields.rgn);
    const latitude = coordinate(fields.lat, 90);
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
          longitude: latitude === null ? null : coordinate(fields.long, 180),
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
export const osOpenNames: FileFormat = {
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
    const type = text(fields.LOCAL_TYPE);
    const name = text(fields.NAME1);
    const place = text(fields.POPULATED_PLACE);
    if (!name) return null;
    if (type === "Named Road") {
      const district = text(fields.POSTCODE_DISTRICT);
      if (!district) return null;
      const streets = [name, text(fields.NAME2)].filter((s): s is string => s !== null);
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
      region: text(fields.COUNTRY),
      region_code: null,
      subregion: text(fields.COUNTY_UNITARY) ?? text(fields.REGION),
      subregion_code: null,
      latitude: null,
      longitude: null,
    };
    const borough = text(fields.DISTRICT_BOROUGH);
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
export const ban: FileFormat = {
  delimiter: ";",
  header: true,
  columns: ["numero", "rep", "nom_voie", "code_postal", "nom_commune", "nom_ld"],
  parse(fields) {
    const postcode = text(fields.code_postal);
    if (!postcode || !/^\d{5}$/.test(postcode)) return null;
    const locality = text(fields.nom_commune);
    const voie = text(fields.nom_voie);
    const names = [voie, text(fields.nom_ld)].filter((s): s is string => s !== null);
    if (!names.length) return null;
    // The house number is kept on its street (not on a lieu-dit), so an address can be located to the premise.
    const number = voie ? premiseNumber(fields.numero ?? "", fields.rep ?? "") : null;
    return {
      streets: [...new Set(names)].map((street) => ({ country: "FR", postcode, street, locality })),
      ...(number ? { premises: [{ country: "FR", postcode, street: voie!, number }] } : {}),
    };
  },
  versionFromFileName: () => null,
};
