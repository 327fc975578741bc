import countries from "../../datasets/ip/countries.json";

/**
 * Country names and continents of ISO 3166-1 alpha-2 codes (countries-list, MIT), bundled with the Worker: reference
 * data several products read (IP places an address, consistency names an email TLD's country). Rebuilt in datasets/ip
 * (docs/ip.md).
 */
const COUNTRIES: Record<string, string[]> = countries.countries;

export const COUNTRY_NAMES_VERSION = countries.version;

/** Name and continent code (AF, AN, AS, EU, NA, OC, SA) of an ISO 3166-1 alpha-2 code; nulls for a code it lacks. */
export function countryInfo(code: string): { name: string | null; continent: string | null } {
  const known = COUNTRIES[code];
  return { name: known?.[0] ?? null, continent: known?.[1] ?? null };
}
