import { z } from "zod";
import { sourcesSchema } from "../../engines/sources";

/** What the account may report about an address it used (docs/ip.md, "Feedback"; ipFeedback in feedback.ts). */
export const IP_OUTCOMES = ["legit", "fraud", "chargeback", "abuse", "spam"] as const;
export type IpOutcome = (typeof IP_OUTCOMES)[number];

/**
 * Why an answer is what it is, most significant first (docs/ip.md, "Reasons"); null for a placed address with nothing
 * to say. Only `reserved`, `invalid_ip`, `unplaced` and `dataset_not_installed` answers are free.
 */
export const IP_REASONS = [
  "invalid_ip",
  "deny_list",
  "allow_list",
  "reported",
  "reserved",
  "tor_exit",
  "vpn",
  "hosting",
  "dataset_not_installed",
  "not_covered",
  "unplaced",
  "anycast",
  "sample_data",
] as const;

/** Why `city` is null (null when it is given): docs/ip.md, "The answer". */
export const CITY_REASONS = [
  "not_placed",
  "anycast",
  "dataset_not_installed",
  "not_in_dataset",
  "not_covered",
  "country_mismatch",
] as const;
export type CityReason = (typeof CITY_REASONS)[number];

/**
 * Why `tor`, `vpn` or `proxy` is what it is (docs/ip.md, "The answer"): null when a list decided it (true: a list
 * holds the address; false: a complete list does not), else `not_checked` (reserved or invalid: no list asked),
 * `dataset_not_installed`, `not_covered` (only part of a list is installed and it does not hold the address) or
 * `sample_data` (the list asked is a synthetic sample: a sample's word either way, never the published list's).
 */
export const SIGNAL_REASONS = ["not_checked", "dataset_not_installed", "not_covered", "sample_data"] as const;
export type SignalReason = (typeof SIGNAL_REASONS)[number];
export type IpReason = (typeof IP_REASONS)[number];

const signalReason = (field: string) =>
  z
    .enum(SIGNAL_REASONS)
    .nullable()
    .describe(
      `Why \`${field}\` is what it is: null when a list decided it (true: a list holds the address; false: a ` +
        "complete list does not); `not_checked` (reserved or invalid: no list asked), `dataset_not_installed`, " +
        "`not_covered` (part of a list is installed and does not hold it) or `sample_data` (the list asked is a " +
        "synthetic sample: its word either way, never the published list's).",
    );

/** `tor_reason`, `vpn_reason`, `proxy_reason`, in the answer's order. */
const signalReasons = () => ({
  tor_reason: signalReason("tor"),
  vpn_reason: signalReason("vpn"),
  proxy_reason: signalReason("proxy"),
});
const sources = sourcesSchema;
const listMatch = z.object({ id: z.int(), name: z.string(), kind: z.enum(["allow", "deny"]) });

export const ipResultSchema = z.object({
  ip: z.string(),
  version: z.union([z.literal(4), z.literal(6)]).nullable(),
  valid: z.boolean(),
  reserved: z.boolean(),
  reserved_range: z.string().nullable(),
  reserved_name: z.string().nullable(),
  placed: z.boolean(),
  country: z.string().nullable(),
  country_name: z.string().nullable(),
  continent: z.string().nullable(),
  city: z.string().nullable().describe("City of the address from `ip-city`; null when unknown."),
  region: z
    .string()
    .nullable()
    .describe("First-level subdivision (state, province, region) from `ip-city`; null when unknown."),
  postal_code: z.string().nullable().describe("Postal code from `ip-city`; null when unknown."),
  latitude: z
    .number()
    .nullable()
    .describe("Approximate latitude of the network (WGS 84, 4 decimals); null when unknown."),
  longitude: z
    .number()
    .nullable()
    .describe("Approximate longitude of the network (WGS 84, 4 decimals); null when unknown."),
  accuracy_radius_km: z
    .int()
    .nullable()
    .describe(
      "Radius around the coordinates within which the address likely is; null when the installed city data does not " +
        "say.",
    ),
  city_reason: z
    .enum(CITY_REASONS)
    .nullable()
    .describe(
      "Why `city` is null: `not_placed` (no country), `anycast`, `dataset_not_installed`, `not_in_dataset` (the " +
        "complete city file places the network in its country only), `not_covered` (the installed city file is a " +
        "sample or part of it), `country_mismatch` (its city is in another country than `country`); null with a city.",
    ),
  asn: z.int().nullable(),
  as_name: z.string().nullable(),
  network: z.string().nullable(),
  anycast: z
    .literal(true)
    .nullable()
    .describe(
      "In a well-known anycast network (public DNS resolvers, CDN edges, `anycast-networks`): announced from many " +
        "countries at once, so no country is given. Null when not listed (the list is not every anycast network).",
    ),
  hosting: z.boolean().nullable(),
  hosting_provider: z
    .string()
    .nullable()
    .describe(
      "The cloud or hosting company whose published ranges hold the address (`hosting-*` datasets); null when none " +
        "does.",
    ),
  tor: z
    .boolean()
    .nullable()
    .describe(
      "On the Tor exit list: true; false only when a full exit list is installed and does not hold it; else null.",
    ),
  vpn: z
    .boolean()
    .nullable()
    .describe(
      "In an installed VPN range list: true; false only when a list with full coverage is installed; else null.",
    ),
  proxy: z
    .boolean()
    .nullable()
    .describe(
      "In an installed open-proxy list: true; false only when a list with full coverage is installed; else null.",
    ),
  ...signalReasons(),
  anonymous: z.boolean().nullable(),
  list: listMatch.nullable(),
  feedback: z
    .object({ outcome: z.enum(IP_OUTCOMES), reported_at: z.iso.datetime() })
    .nullable()
    .describe("The account's latest report on the address in the last 90 days (POST /ip/feedback); null when none."),
  reason: z.enum(IP_REASONS).nullable(),
  risk_score: z.int(),
  risk_components: z.record(z.string(), z.int()),
  risk_level: z.enum(["low", "medium", "high"]),
  sources,
});

export const asnSchema = z.object({
  asn: z.int(),
  name: z.string().nullable(),
  country: z.string().nullable(),
  prefixes: z.array(z.string()),
  prefixes6: z.array(z.string()),
  num_ipv4: z.int(),
  num_ipv6: z.string().describe("A decimal string: IPv6 counts pass 2^53."),
  hosting: z.boolean().nullable(),
  sources,
});

export const rangeSchema = z.object({
  cidr: z.string(),
  first: z.string(),
  last: z.string(),
  size: z.union([z.int(), z.string()]).describe("A number, or a decimal string past 2^53."),
  blocks: z.array(
    z.object({
      start: z.string(),
      end: z.string(),
      asn: z.int().nullable(),
      as_name: z.string().nullable(),
      country: z.string().nullable(),
    }),
  ),
  truncated: z.boolean(),
  sources,
});

export type IpResult = z.output<typeof ipResultSchema>;
export type ListMatch = z.output<typeof listMatch>;

/** `data` of `GET /ip/asn/{asn}`. */
export type AsnData = z.output<typeof asnSchema>;

/**
 * An ASN answer as the walk sees it: `not_found` answers 404 ASN_NOT_FOUND, `unavailable` 501 ASN_INDEX_UNAVAILABLE.
 */
export interface AsnAnswer {
  status: "found" | "not_found" | "unavailable";
  data: AsnData;
}

/** `data` of `GET /ip/range?cidr=`: `size` a number, or a decimal string past 2^53 (IPv6 blocks wider than a /75). */
export type RangeResult = z.output<typeof rangeSchema>;
export type RangeBlock = RangeResult["blocks"][number];
