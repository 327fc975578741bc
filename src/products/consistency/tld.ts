import { countryInfo } from "../../platform/countries";
import { whole } from "../../engines/sources";

/**
 * Country-code TLDs sold and used as generic names (the list search engines treat as generic), so a domain under one
 * says nothing about where its owner is: docs/consistency.md, "Email TLD country".
 */
export const GENERIC_USE_CCTLDS = [
  "ad",
  "ai",
  "as",
  "bz",
  "cc",
  "cd",
  "co",
  "dj",
  "fm",
  "gg",
  "io",
  "la",
  "me",
  "ms",
  "nu",
  "sc",
  "sr",
  "su",
  "tk",
  "tv",
  "ws",
] as const;

/** TLDs whose ISO 3166-1 code differs from the label. */
const ISO_OF: Record<string, string> = { uk: "GB" };

const GENERIC = new Set<string>(GENERIC_USE_CCTLDS);

export const CCTLD_SOURCE = whole("cctld-countries", "2026-11-24");

/** The country a domain's TLD names (ISO 3166-1 alpha-2), or null for generic TLDs and generic-use ccTLDs. */
export function tldCountry(domain: string): string | null {
  const tld = domain.toLowerCase().replace(/\.$/, "").split(".").pop() ?? "";
  if (GENERIC.has(tld)) return null;
  const code = ISO_OF[tld] ?? (/^[a-z]{2}$/.test(tld) ? tld.toUpperCase() : null);
  return code && countryInfo(code).name ? code : null;
}
