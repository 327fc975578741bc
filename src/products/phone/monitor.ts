import type { PhoneResult } from "./result";

/**
 * What a phone monitor watches (docs/phone.md, "Monitors"): validity, line type, the original carrier, the place, the
 * disposable list and delivery feedback. A run posts `flags`: each number newly flagged, with the change flags it
 * raised.
 */
export interface Observed extends Record<string, unknown> {
  valid: boolean;
  line_type: string;
  carrier: string | null;
  /** Where `carrier` came from: carriers of different sources are not compared (a first checked run is no change). */
  carrier_source: "network" | "allocation" | null;
  location: string | null;
  disposable: boolean | null;
  /** Delivery feedback reported a permanent failure (the answer is the suppressed one, reason `undelivered`). */
  undelivered: boolean;
}

const FIELDS = ["valid", "line_type", "carrier", "location", "disposable", "undelivered"] as const;

export const observe = (r: PhoneResult): Observed => ({
  valid: r.valid,
  line_type: r.line_type,
  carrier: r.carrier,
  carrier_source: r.carrier_source,
  location: r.location,
  disposable: r.disposable,
  undelivered: r.reason === "undelivered",
});

/** Baselines recorded before `undelivered` was observed lack it: they read as not undelivered, not as a change. */
const withDefaults = (observed: Record<string, unknown>): Record<string, unknown> => ({
  undelivered: false,
  ...observed,
  carrier_source: observed.carrier_source ?? (observed.carrier ? "allocation" : null),
});

export function compare(baseline: Record<string, unknown>, now: Record<string, unknown>) {
  const before = withDefaults(baseline);
  return FIELDS.filter((field) => before[field] !== now[field]).map((field) => ({
    field,
    from: before[field] ?? null,
    to: now[field] ?? null,
  }));
}

export type ChangeFlag =
  | "became_invalid"
  | "line_type_changed"
  | "carrier_changed"
  | "became_disposable"
  | "delivery_failed";

/**
 * The change flags between a baseline and a new answer. A carrier that was or became unknown (a table not installed,
 * or the stored answer of a suppressed number) is not a carrier change, nor is one of another source (the original
 * allocation against the network a partner reported: `network` turned on or off, or a partner outage); a number that
 * was valid and is no longer only raises `became_invalid`; a permanent delivery failure reported since the baseline
 * raises `delivery_failed`.
 */
export function flags(baseline: Record<string, unknown>, now: Record<string, unknown>): ChangeFlag[] {
  const before = withDefaults(baseline) as Observed;
  const after = now as Observed;
  if (before.valid && !after.valid) return ["became_invalid"];
  const raised: ChangeFlag[] = [];
  if (before.valid && after.valid && before.line_type !== after.line_type) raised.push("line_type_changed");
  const sameSource = before.carrier_source === (after.carrier_source ?? (after.carrier ? "allocation" : null));
  if (before.carrier !== null && after.carrier !== null && sameSource && before.carrier !== after.carrier)
    raised.push("carrier_changed");
  if (after.disposable === true && before.disposable !== true) raised.push("became_disposable");
  if (after.undelivered && !before.undelivered) raised.push("delivery_failed");
  return raised;
}
