import type { PolicyDecision } from "../../engines/policy/policy";
import type { Source } from "../../engines/product";
import type { DeliveryAnswer, DeliveryMatch } from "../../platform/partners/types";

/** An address as an object; only `country` is required (ISO 3166-1 alpha-2). */
export interface AddressFields {
  line1?: string | null;
  line2?: string | null;
  locality?: string | null;
  region?: string | null;
  postcode?: string | null;
  country: string;
}

/** An address written on one line (or several, separated by commas or line breaks), with its country given apart. */
export interface OneLineAddress {
  address: string;
  country: string;
}

/** One address as the engines carry it: batch items, bulk rows and monitor entries are one of these. */
export type AddressInput = AddressFields | OneLineAddress;

export const isOneLine = (input: AddressInput): input is OneLineAddress =>
  typeof (input as OneLineAddress).address === "string";

export const VERIFICATIONS = ["verified", "format_only", "invalid"] as const;
export type Verification = (typeof VERIFICATIONS)[number];

export const PRECISIONS = ["none", "country", "postcode", "locality", "street", "premise"] as const;
export type Precision = (typeof PRECISIONS)[number];

/**
 * Why an answer is not a clean `verified` one (docs/address.md), first that applies:
 * `unsupported_country`, `invalid_postcode_format`, `unknown_postcode`, `locality_mismatch`, `region_mismatch`,
 * `missing_components`; on the stored answer of a suppressed address, `suppressed` (by hand), or `returned` or
 * `undeliverable` (by delivery feedback).
 */
export const ADDRESS_REASONS = [
  "unsupported_country",
  "invalid_postcode_format",
  "unknown_postcode",
  "locality_mismatch",
  "region_mismatch",
  "missing_components",
  "no_delivery_point",
  "not_covered",
  "partner_unavailable",
  "suppressed",
  "returned",
  "undeliverable",
  "sample_data",
] as const;
export type AddressReason = (typeof ADDRESS_REASONS)[number];

export const COMPONENTS = ["line1", "locality", "region", "postcode"] as const;
export type Component = (typeof COMPONENTS)[number];

export interface NormalizedAddress {
  line1: string | null;
  line2: string | null;
  locality: string | null;
  region: string | null;
  postcode: string | null;
  country: string;
}

export interface Correction {
  field: Component;
  from: string | null;
  to: string;
}

export type RiskLevel = "low" | "medium" | "high";

export const DELIVERY_MATCHES = [
  "confirmed",
  "confirmed_secondary_ignored",
  "missing_secondary",
  "not_confirmed",
] as const satisfies readonly DeliveryMatch[];

/** A delivery-point partner's answer (docs/address.md, "Delivery-point check"), as the partner client reads it. */
export type DeliveryPoint = DeliveryAnswer;

/** `data` of an address answer (docs/address.md lists every field). */
export interface AddressResult {
  /** The `address` value exactly as sent: an object or the one-line string. */
  input: AddressFields | string;
  country: string;
  valid: boolean;
  verification: Verification;
  precision: Precision;
  address: NormalizedAddress;
  /** The address in the country's postal format, one line per element, joined with line breaks (no country line). */
  formatted: string | null;
  /** Null when no postcode was given, or no format is known for the country. */
  postcode_format_valid: boolean | null;
  /** Null when no installed dataset covers the country (or no postcode was given). */
  postcode_found: boolean | null;
  locality_matches_postcode: boolean | null;
  region_matches_postcode: boolean | null;
  po_box: boolean;
  corrections: Correction[];
  missing_components: Component[];
  geo: { latitude: number; longitude: number; precision: "postcode" } | null;
  /** Checked by a delivery-point partner, or false on an address delivery feedback suppressed; else null. */
  deliverable: boolean | null;
  /** What the delivery-point partner said (`delivery_point: true`); null when not checked. */
  delivery_point: DeliveryPoint | null;
  reason: AddressReason | null;
  risk_score: number;
  risk_components: Record<string, number>;
  risk_level: RiskLevel;
  sources: Source[];
  /** The account's sending policy decision; null when it has none (stamped by the policy engine on every answer). */
  policy: PolicyDecision | null;
}
