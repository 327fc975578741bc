import countries from "../../../datasets/address/snapshots/address-countries.json";
import formats from "../../../datasets/address/snapshots/postcode-formats.json";
import { whole, type Source } from "../../engines/sources";

/**
 * Countries and their postcode formats, from the bundled snapshots (datasets/address/README.md): which two-letter codes
 * are countries, whether a country uses postcodes, whether a postcode has its shape, and the one spelling the
 * reference tables are keyed by.
 */
export const FORMATS_SOURCE: Source = whole(formats.name, formats.version);
export const COUNTRIES_SOURCE: Source = whole(countries.name, countries.version);

const COUNTRY_NAMES: Readonly<Record<string, string>> = countries.data;
const PATTERNS: Readonly<Record<string, { pattern: string; flags: string }>> = formats.data;

/** `ZZ` is ISO 3166's user-assigned code: never a country, so it carries the test addresses. */
export const isCountry = (code: string) => code !== "ZZ" && Object.hasOwn(COUNTRY_NAMES, code);

/**
 * Where the snapshot's pattern disagrees with the national operator's format, found by checking every country against a
 * second source (postal-codes-js, test/products/address/postcode-formats.test.ts; the differences kept are in
 * docs/address.md, "Postcode formats"). GB: Royal Mail's format (BS 7666: no Q, V or X first, no I, J or Z second,
 * fixed inward-code letters), so `Q1 1AA` is malformed.
 */
const REFINED: Record<string, RegExp> = {
  GB: /^([A-PR-UWYZ]([0-9]{1,2}|[A-HK-Y][0-9]{1,2}|[0-9][A-HJKPSTUW]|[A-HK-Y][0-9][ABEHMNPRVWXY]) ?[0-9][ABD-HJLNP-UW-Z]{2}|GIR ?0AA)$/,
  // Correo Argentino: the CPA (C1425DBA), and the four-digit codes still in use beside it.
  AR: /^([A-HJ-NP-Z]\d{4}([A-Z]{3})?|\d{4})$/,
  // Israel Post: seven digits since 2013; the five-digit codes before them. Never six.
  IL: /^(\d{5}|\d{7})$/,
  // MaltaPost: three letters and four digits.
  MT: /^[A-Z]{3} ?\d{4}$/,
  // PostNL never issues the letter pairs SA, SD and SS.
  NL: /^[1-9]\d{3} ?(?!SA|SD|SS)[A-Z]{2}$/,
  // Correos de Nicaragua: five digits, or the older NNN-NNN-N.
  NI: /^(\d{5}|(\d{4}-)?\d{3}-\d{3}(-\d)?)?$/,
  // CTT: NNNN-NNN; the four digits alone are only the area.
  PT: /^\d{4}-\d{3}$/,
  // Saudi Post: five digits, optionally the four-digit additional number.
  SA: /^\d{5}(-\d{4})?$/,
  // Somali Post: the region's two letters and five digits (the digits alone are also written).
  SO: /^([A-Z]{2} ?)?\d{5}$/,
  // El Salvador: CP and four digits, the CP often left out.
  SV: /^(CP )?[1-3][1-7][0-2]\d$/,
  // IPOSTEL: four digits, optionally a dash and a letter.
  VE: /^\d{4}(-[A-Z])?$/,
};

const compiled = new Map<string, RegExp>();
function patternOf(country: string): RegExp | null {
  const format = PATTERNS[country];
  if (!format) return null;
  if (REFINED[country]) return REFINED[country];
  let regex = compiled.get(country);
  if (!regex) compiled.set(country, (regex = new RegExp(format.pattern, format.flags)));
  return regex;
}

/** Whether an address of the country needs a postcode: it has a format, and the format does not allow none. */
export const postcodeRequired = (country: string) => {
  const pattern = patternOf(country);
  return pattern !== null && !pattern.test("");
};

/**
 * Countries whose postcodes are written with one space before the last three characters (UK style) or after a group.
 */
const SPACED_TAIL = new Set(["GB", "JE", "GG", "IM", "CA", "FK", "GI", "GS", "IO", "PN", "SH", "TC"]);

/** Written compact, printed grouped: ZIP+4 (the US and its territories, Saudi Arabia), Japan, Portugal, the Caymans. */
const ZIP4 = new Set(["US", "PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW", "SA"]);
const GROUPED: [RegExp, string, (c: string) => boolean][] = [
  [/^(\d{5})(\d{4})$/, "$1-$2", (c) => ZIP4.has(c)],
  [/^(\d{3})(\d{4})$/, "$1-$2", (c) => c === "JP"],
  [/^(\d{4})(\d{3})$/, "$1-$2", (c) => c === "PT"],
  [/^(KY\d)(\d{4})$/, "$1-$2", (c) => c === "KY"],
];

/** Letters some people write before a postcode: the country's code (`DK-1054`, `LT12345`), Luxembourg's `L-`. */
const prefixOf = (country: string) => new RegExp(`^(?:${country === "LU" ? "LU|L" : country})\\s*-?\\s*(?=\\d)`);
const SPACED_AFTER: Record<string, number> = { NL: 4, SE: 3, CZ: 3, SK: 3, GR: 3 };

/**
 * The country's letters written before the code dropped (`DK-1054` -> `1054`), or kept with no separator where they
 * are part of it (`VC-0100` -> `VC0100`); the value as it was when neither fits the format.
 */
function withoutPrefix(country: string, value: string): string {
  const pattern = patternOf(country);
  if (!pattern || pattern.test(value) || !prefixOf(country).test(value)) return value;
  const stripped = value.replace(prefixOf(country), "");
  if (pattern.test(stripped)) return stripped;
  return pattern.test(`${country}${stripped}`) ? `${country}${stripped}` : value;
}

/**
 * The postcode in the country's own spelling: upper case, single spaces, then the grouping its post office prints
 * (`sw1a2aa` -> `SW1A 2AA`, `1234ab` -> `1234 AB`, `75 008` -> `75008`, `SE-114 55` -> `114 55`).
 */
export function canonicalPostcode(country: string, postcode: string): string {
  let value = postcode.trim().toUpperCase().replace(/\s+/g, " ");
  value = withoutPrefix(country, value);
  const compact = value.replace(/ /g, "");
  for (const [shape, grouped, applies] of GROUPED)
    if (applies(country) && shape.test(compact)) return compact.replace(shape, grouped);
  if (country === "TW") return compact.replace(/-/g, "");
  if (SPACED_TAIL.has(country) && compact.length > 3) return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
  const group = SPACED_AFTER[country];
  if (group !== undefined && compact.length > group && !compact.includes("-"))
    return `${compact.slice(0, group)} ${compact.slice(group)}`;
  if (["FR", "DE", "US", "IT", "ES"].includes(country)) return compact;
  return value;
}

/** Whether the postcode has the country's shape; null when no format is known for the country. */
export function postcodeShapeValid(country: string, postcode: string): boolean | null {
  const pattern = patternOf(country);
  if (!pattern) return null;
  const value = postcode.trim().toUpperCase().replace(/\s+/g, " ");
  return value !== "" && (pattern.test(value) || pattern.test(canonicalPostcode(country, value)));
}

/** The reference tables key US ZIP+4 codes by their five-digit ZIP. */
export const referenceKey = (country: string, canonical: string) =>
  country === "US" ? canonical.slice(0, 5) : canonical;

/**
 * The last stretch of `text` that is a postcode of the country, tried on runs of one to three words (a UK postcode is
 * two words); null when none is. Used to read one-line addresses.
 */
export function findPostcode(country: string, text: string): { postcode: string; start: number; end: number } | null {
  if (!patternOf(country)) return null;
  const words = [...text.matchAll(/[\p{L}\p{N}-]+/gu)];
  for (let last = words.length - 1; last >= 0; last--) {
    for (let size = 1; size <= 3 && last - size + 1 >= 0; size++) {
      const first = words[last - size + 1]!;
      const end = words[last]!.index! + words[last]![0].length;
      const candidate = text.slice(first.index!, end);
      if (/\d/.test(candidate) && postcodeShapeValid(country, candidate))
        return { postcode: candidate, start: first.index!, end };
    }
  }
  return null;
}
