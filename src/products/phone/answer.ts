import { whole, type Source, DELIVERY_FEEDBACK, SUPPRESSION_LIST } from "../../engines/sources";
import type { PartnerCheck } from "../../platform/partners/types";
import type { NetworkAnswer } from "../../platform/phone-network";
import { planSource } from "./datasets";
import type { PlanReading } from "./numbering";
import type { PhoneReason, PhoneResult } from "./result";
import { scored } from "./score";

/** What the prefix tables said about a valid number; nulls where a table is not installed or has no prefix for it. */
export interface PrefixFacts {
  carrier: string | null;
  location: string | null;
  timezones: string[] | null;
  disposable: boolean | null;
  disposable_last_seen: string | null;
  missing_datasets: string[];
  sources: Source[];
  /** A table installed as a synthetic sample gave the carrier, place or zones: the answer says so in its reason. */
  fromSample: boolean;
}

const NO_FACTS: PrefixFacts = {
  carrier: null,
  location: null,
  timezones: null,
  disposable: false,
  disposable_last_seen: null,
  missing_datasets: [],
  sources: [],
  fromSample: false,
};

/**
 * The first that holds: invalid number, disposable, premium rate; a later `undelivered` (feedback) ranks before
 * disposable.
 */
export function reasonOf(
  r: Pick<PhoneResult, "valid" | "disposable" | "line_type"> & Partial<Pick<PhoneResult, "network_status">>,
  unavailable = false,
): PhoneReason | null {
  if (!r.valid) return "invalid_number";
  if (unavailable) return "partner_unavailable";
  if (r.network_status === "inactive") return "inactive";
  if (r.disposable) return "disposable";
  if (r.line_type === "premium_rate") return "premium_rate";
  return null;
}

/** A full answer from the plan's reading and the prefix facts; the reason and risk are computed from its own fields. */
export function phoneAnswer(reading: PlanReading, facts: PrefixFacts = NO_FACTS, reason?: PhoneReason): PhoneResult {
  const base = {
    phone: reading.phone,
    valid: reading.valid,
    possible: reading.possible,
    validation_error: reading.validation_error,
    e164: reading.e164,
    national_format: reading.national_format,
    international_format: reading.international_format,
    country: reading.country,
    calling_code: reading.calling_code,
    line_type: reading.line_type,
    carrier: facts.carrier,
    carrier_source: facts.carrier === null ? null : ("allocation" as const),
    location: facts.location,
    timezones: facts.timezones,
    disposable: facts.disposable,
    disposable_last_seen: facts.disposable_last_seen,
    network_checked: false,
    network_status: null,
    sim_swapped: null,
  };
  const withReason = { ...base, reason: reason ?? reasonOf(base) ?? (facts.fromSample ? "sample_data" : null) };
  return {
    ...withReason,
    ...scored(withReason),
    missing_datasets: facts.missing_datasets,
    sources: [planSource, ...facts.sources],
    policy: null,
  };
}

/**
 * The answer with the live network check applied (docs/phone.md, "Live network check"): the partner's line type and
 * current carrier where it gives them, its status, and its `sources` entry; `null` (no partner answered) leaves the
 * unchecked answer with `partner_unavailable`. Reason and risk are computed again from the answer's own fields.
 */
export function withNetwork(answer: PhoneResult, check: PartnerCheck<NetworkAnswer>): PhoneResult {
  if (!answer.valid) return answer;
  if (check.answer === null) {
    const reason = reasonOf(answer, true);
    // A partner asked without an answer is cited `none`: nothing of the answer is its.
    return { ...answer, reason, ...scored({ ...answer, reason }), sources: [...answer.sources, ...check.sources] };
  }
  const { answer: n, sources } = check;
  const checked = {
    ...answer,
    line_type: n.lineType ?? answer.line_type,
    carrier: n.carrier ?? answer.carrier,
    carrier_source: n.carrier ? ("network" as const) : answer.carrier_source,
    network_checked: true,
    network_status: n.status,
    sim_swapped: n.simSwapped,
  };
  // The partner checks the line, not the sample's place or zones: a sample's reason stays unless another applies.
  const reason = reasonOf(checked) ?? (answer.reason === "sample_data" ? "sample_data" : null);
  return { ...checked, reason, ...scored({ ...checked, reason }), sources: [...answer.sources, ...sources] };
}

/** The stored answer of a number suppressed by hand: the plan's reading, reason `suppressed`. */
export function manualSuppression(reading: PlanReading): PhoneResult {
  return {
    ...phoneAnswer(reading, NO_FACTS, "suppressed"),
    sources: [planSource, whole(SUPPRESSION_LIST, "account")],
  };
}

/** The stored answer of a number whose delivery feedback reported a permanent failure: reason `undelivered`. */
export function feedbackSuppression(reading: PlanReading, at: number): PhoneResult {
  const feedback = whole(DELIVERY_FEEDBACK, new Date(at).toISOString().slice(0, 10));
  return {
    ...phoneAnswer(reading, NO_FACTS, "undelivered"),
    sources: [planSource, feedback, whole(SUPPRESSION_LIST, "account")],
  };
}
