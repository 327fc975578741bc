import countries from "../../../datasets/address/snapshots/address-countries.json";
import formats from "../../../datasets/address/snapshots/postcode-formats.json";
import type { Source } from "../../engines/product";

/**
 * Countries and their postcode formats, from the bundled snapshots (datasets/address/README.md): which two-letter codes
 * are countries, whether a country uses postcodes, whether a postcode has its shape, and the one spelling the
 * reference tables are keyed by.
 */
export const FORMATS_SOURCE: Source = { dataset: formats.name, version: formats.version };
export const COUNTRIES_SOURCE: Source = { dataset: countries.name, version: countries.version };

const COUNTRY_NAMES: Readonly<Record<string, string>> = countries.data;
const PATTERNS: Readonly<Record<string, { pattern: string; flags: string }>> = formats.data;

/** `ZZ` is ISO 3166's user-assigned code: never a country, so it carries the test addresses. */
export const isCountry = (code: string) => code !== "ZZ" && Object.hasOwn(COUNTRY_NAMES, code);

export const hasPostcodes = (country: string) => Object.hasOwn(PATTERNS, country);

/**
 * Where the snapshot's pattern is looser than the post office's own rule. GB: Royal Mail's postcode format (BS 7666:
 * no Q, V or X as the first letter, no I, J or Z as the second, fixed inward-code letters), so `Q1 1AA` is malformed.
 */
const REFINED: Record<string, RegExp> = {
  GB: /^([A-PR-UWYZ]([0-9]{1,2}|[A-HK-Y][0-9]{1,2}|[0-9][A-HJKPSTUW]|[A-HK-Y][0-9][ABEHMNPRVWXY]) ?[0-9][ABD-HJLNP-UW-Z]{2}|GIR ?0AA)$/,
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

/** Countries whose postcodes are written with one space before the last three characters (UK style) or after a group. */
const SPACED_TAIL = new Set(["GB", "JE", "GG", "IM", "CA"]);
const SPACED_AFTER: Record<string, number> = { NL: 4, SE: 3, CZ: 3, SK: 3, GR: 3 };

/**
 * The postcode in the country's own spelling: upper case, single spaces, then the grouping its post office prints
 * (`sw1a2aa` -> `SW1A 2AA`, `1234ab` -> `1234 AB`, `75 008` -> `75008`, `SE-114 55` -> `114 55`).
 */
export function canonicalPostcode(country: string, postcode: string): string {
  let value = postcode.trim().toUpperCase().replace(/\s+/g, " ");
  value = value.replace(new RegExp(`^${country}[- ]`), "");
  const compact = value.replace(/ /g, "");
  if (SPACED_TAIL.has(country) && compact.length > 3) return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
  const group = SPACED_AFTER[country];
  if (group !== undefined && compact.length > group && !compact.includes("-")) return `${compact.slice(0, group)} ${compact.slice(group)}`;
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
export const referenceKey = (country: string, canonical: string) => (country === "US" ? canonical.slice(0, 5) : canonical);

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
      if (/\d/.test(candidate) && postcodeShapeValid(country, candidate)) return { postcode: candidate, start: first.index!, end };
    }
  }
  return null;
}
