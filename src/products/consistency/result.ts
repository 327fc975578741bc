import type { Source } from "../../engines/product";

export const SIGNAL_NAMES = ["email", "phone", "ip", "address", "entity"] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

/**
 * One consistency call's signals as sent: two or more of them. Phone, address and company values are their products'
 * own inputs (the body validates them with those products' schemas); consistency hands them back unread.
 */
export interface ConsistencyInput {
  email?: string | null;
  phone?: unknown;
  ip?: string | null;
  address?: unknown;
  entity?: unknown;
}

/** Every named check, in the order answers list them (docs/consistency.md, "Checks"). */
export const CHECK_NAMES = [
  "phone_country_matches_ip_country",
  "phone_country_matches_address_country",
  "ip_country_matches_address_country",
  "entity_country_matches_address_country",
  "entity_country_matches_phone_country",
  "entity_country_matches_ip_country",
  "email_tld_country_matches_address_country",
  "email_domain_resembles_entity_name",
  "email_is_business_for_entity",
  "address_postcode_matches_locality",
  "ip_not_anonymous",
  "phone_line_not_virtual",
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CHECK_RESULTS = ["agree", "disagree", "unknown", "not_applicable"] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

export const LEVELS = ["consistent", "mixed", "inconsistent"] as const;
export type Level = (typeof LEVELS)[number];

/** The fields of each signal the checks read (null: the signal was not given). */
export interface Signals {
  email: {
    email: string;
    valid: boolean;
    domain: string | null;
    tld_country: string | null;
    free_provider: boolean;
    disposable: boolean;
  } | null;
  phone: {
    phone: string;
    valid: boolean;
    e164: string | null;
    country: string | null;
    line_type: string;
    /** `network` when a network partner answered (`network: true`), else `numbering_plan`. */
    line_type_source: LineTypeSource;
  } | null;
  ip: {
    ip: string;
    valid: boolean;
    reserved: boolean;
    placed: boolean;
    country: string | null;
    anonymous: boolean | null;
    tor: boolean | null;
    hosting: boolean | null;
  } | null;
  address: {
    country: string;
    country_supported: boolean;
    postcode: string | null;
    locality: string | null;
    postcode_found: boolean | null;
    locality_matches_postcode: boolean | null;
  } | null;
  entity: { identifier: string; found: boolean; name: string | null; country: string | null } | null;
}

export const LINE_TYPE_SOURCES = ["network", "numbering_plan"] as const;
export type LineTypeSource = (typeof LINE_TYPE_SOURCES)[number];

export type FieldValue = string | boolean | null;

export interface Check {
  name: CheckName;
  result: CheckResult;
  weight: number;
  /** Each signal field the check read, as `signal.field` -> its value in `signals`. */
  decided_by: Record<string, FieldValue>;
  reason: string;
}

/** `data` of a consistency answer (docs/consistency.md lists every field). */
export interface ConsistencyResult {
  signals: Signals;
  checks: Check[];
  agreements: CheckName[];
  disagreements: CheckName[];
  score: number | null;
  level: Level | null;
  risk_score: number;
  risk_level: "low" | "medium" | "high";
  risk_components: Record<string, number>;
  /** `partner_unavailable` when `network: true` was asked and no network partner answered (the call is then free). */
  reason: "partner_unavailable" | "sample_data" | null;
  sources: Source[];
}
