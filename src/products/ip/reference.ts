import hosting from "../../../datasets/ip/hosting-asns.json";

/**
 * The curated hosting networks bundled with the Worker (datasets/ip/hosting-asns.json), edited in datasets/ip
 * (docs/ip.md). Country names and continents are platform reference data (src/platform/countries.ts), re-exported for
 * IP's answer.
 */
export { COUNTRY_NAMES_VERSION, countryInfo } from "../../platform/countries";

const HOSTING = new Set(hosting.asns.map((a) => a.asn));

export const HOSTING_ASNS_VERSION = hosting.version;

/** true for a curated hosting network, false for any other known AS, null when the AS is unknown. */
export const hostingOf = (asn: number | null): boolean | null => (asn === null ? null : HOSTING.has(asn));
