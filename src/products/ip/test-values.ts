import { cidrContains, parseCidr, parseIp } from "../../platform/ip-address";
import type { AsnData, IpResult } from "./result";
import { UNKNOWN } from "./answer";
import { withRisk } from "./score";
import { whole } from "../../engines/sources";

/**
 * Test values (docs/ip.md, "Test values"): every address of 192.0.2.0/24 (TEST-NET-1, RFC 5737) answers canonically,
 * free, with no dataset asked, never in history; they are also the sandbox key's samples. Four of them stand for the
 * answers people build for; the rest answer as the documentation block they are. AS64496 (RFC 5398) is the test ASN.
 */
export const TEST_NETWORK = parseCidr("192.0.2.0/24")!;
export const TEST_ASN = 64496;
const SOURCES = [whole("ip-test-values", "1")];

type Canned = Partial<Omit<IpResult, "risk_score" | "risk_components" | "risk_level" | "sources">>;

const BASE = {
  ...UNKNOWN,
  version: 4 as const,
  valid: true,
  placed: true,
  hosting: false,
  tor: false,
  // The canned exit list decides `tor`; no VPN or proxy list is asked for a test address.
  tor_reason: null,
  anonymous: false,
  sources: SOURCES,
};

/** A canned address placed in a country and an AS, its city `not_in_dataset`. */
const placed = (
  at: Pick<Required<Canned>, "country" | "country_name" | "continent" | "asn" | "as_name" | "network">,
): Canned => ({ ...at, city_reason: "not_in_dataset" });

/** The four canned answers; any other address of the block gets `documentation`. */
const CANNED: Record<string, Canned> = {
  "192.0.2.1": placed({
    country: "US",
    country_name: "United States",
    continent: "NA",
    asn: TEST_ASN,
    as_name: "Example Network (test)",
    network: "192.0.2.1/32",
  }),
  "192.0.2.2": {
    ...placed({
      country: "DE",
      country_name: "Germany",
      continent: "EU",
      asn: 64497,
      as_name: "Example Hosting (test)",
      network: "192.0.2.2/32",
    }),
    hosting: true,
    hosting_provider: "Example Cloud (test)",
    reason: "hosting",
  },
  "192.0.2.3": {
    ...placed({
      country: "NL",
      country_name: "Netherlands",
      continent: "EU",
      asn: 64498,
      as_name: "Example Relays (test)",
      network: "192.0.2.3/32",
    }),
    tor: true,
    anonymous: true,
    reason: "tor_exit",
  },
  "192.0.2.4": { placed: false, hosting: null, anonymous: false, reason: "unplaced" },
};

/** The canned addresses, and one other address of the block (answered as documentation). */
export const TEST_IPS = [...Object.keys(CANNED), "192.0.2.200"];

const documentation: Canned = {
  reserved: true,
  reserved_range: "192.0.2.0/24",
  reserved_name: "Documentation (TEST-NET-1)",
  placed: false,
  hosting: null,
  tor: null,
  tor_reason: "not_checked",
  anonymous: null,
  reason: "reserved",
};

export const isTestIp = (input: string) => {
  const ip = parseIp(input);
  return ip !== null && cidrContains(TEST_NETWORK, ip);
};

/** The canonical answer of a test address, or null for any other value. */
export function testAnswer(input: string): IpResult | null {
  const ip = parseIp(input);
  if (!ip || !cidrContains(TEST_NETWORK, ip)) return null;
  const text = `192.0.2.${Number(ip.value & 0xffn)}`;
  return withRisk({ ...BASE, ...(CANNED[text] ?? documentation), ip: text });
}

/** The canonical answer of `GET /ip/asn/64496`. */
export const testAsn = (): AsnData => ({
  asn: TEST_ASN,
  name: "Example Network (test)",
  country: "US",
  prefixes: ["192.0.2.1/32"],
  prefixes6: [],
  num_ipv4: 1,
  num_ipv6: "0",
  hosting: false,
  sources: SOURCES,
});
