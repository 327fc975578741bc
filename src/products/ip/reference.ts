import countries from "../../../datasets/ip/countries.json";
import hosting from "../../../datasets/ip/hosting-asns.json";

/**
 * The small reference data bundled with the Worker: country names and continents (countries-list, MIT) and the curated
 * hosting networks (datasets/ip/hosting-asns.json). Both are rebuilt or edited in datasets/ip (docs/ip.md).
 */
const COUNTRIES: Record<string, string[]> = countries.countries;
const HOSTING = new Set(hosting.asns.map((a) => a.asn));

export const COUNTRY_NAMES_VERSION = countries.version;
export const HOSTING_ASNS_VERSION = hosting.version;
export const HOSTING_ASN_COUNT = hosting.asns.length;

/** Name and continent code (AF, AN, AS, EU, NA, OC, SA) of an ISO 3166-1 alpha-2 code; nulls for a code it lacks. */
export function countryInfo(code: string): { name: string | null; continent: string | null } {
  const known = COUNTRIES[code];
  return { name: known?.[0] ?? null, continent: known?.[1] ?? null };
}

/** true for a curated hosting network, false for any other known AS, null when the AS is unknown. */
export const hostingOf = (asn: number | null): boolean | null => (asn === null ? null : HOSTING.has(asn));
