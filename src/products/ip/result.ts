import type { Source } from "../../engines/product";

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

/** The account's latest feedback on the address (docs/ip.md, "Feedback"). */
export interface FeedbackMatch {
  outcome: IpOutcome;
  reported_at: string;
}

export interface ListMatch {
  id: number;
  name: string;
  kind: "allow" | "deny";
}

/** `data` of an IP answer (products.md "IP"; every field in docs/ip.md). */
export interface IpResult {
  /** Normalized (RFC 5952; IPv4-mapped IPv6 unwrapped to IPv4), or the input trimmed when it is not an address. */
  ip: string;
  version: 4 | 6 | null;
  valid: boolean;
  reserved: boolean;
  reserved_range: string | null;
  reserved_name: string | null;
  placed: boolean;
  country: string | null;
  country_name: string | null;
  continent: string | null;
  /** From `ip-city`; null when unknown (docs/ip.md, "The answer"). */
  city: string | null;
  region: string | null;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius_km: number | null;
  city_reason: CityReason | null;
  asn: number | null;
  as_name: string | null;
  network: string | null;
  /** In a well-known anycast network (public resolvers, CDN edges): placed in no country; null when not listed. */
  anycast: true | null;
  hosting: boolean | null;
  /** The cloud or hosting company whose published ranges hold the address; null when none does. */
  hosting_provider: string | null;
  tor: boolean | null;
  vpn: boolean | null;
  proxy: boolean | null;
  /** Why each is what it is: null when a list decided it (signal-reasons.ts). */
  tor_reason: SignalReason | null;
  vpn_reason: SignalReason | null;
  proxy_reason: SignalReason | null;
  anonymous: boolean | null;
  list: ListMatch | null;
  feedback: FeedbackMatch | null;
  reason: IpReason | null;
  risk_score: number;
  risk_components: Record<string, number>;
  risk_level: "low" | "medium" | "high";
  sources: Source[];
}

/** `data` of `GET /ip/asn/{asn}`. */
export interface AsnData {
  asn: number;
  name: string | null;
  country: string | null;
  prefixes: string[];
  prefixes6: string[];
  num_ipv4: number;
  num_ipv6: string;
  hosting: boolean | null;
  sources: Source[];
}

/**
 * An ASN answer as the walk sees it: `not_found` answers 404 ASN_NOT_FOUND, `unavailable` 501 ASN_INDEX_UNAVAILABLE.
 */
export interface AsnAnswer {
  status: "found" | "not_found" | "unavailable";
  data: AsnData;
}

export interface RangeBlock {
  start: string;
  end: string;
  asn: number | null;
  as_name: string | null;
  country: string | null;
}

/** `data` of `GET /ip/range?cidr=`. */
export interface RangeResult {
  cidr: string;
  first: string;
  last: string;
  /** Addresses in the block: a number, or a decimal string past 2^53 (IPv6 blocks wider than a /75). */
  size: number | string;
  blocks: RangeBlock[];
  truncated: boolean;
  sources: Source[];
}
