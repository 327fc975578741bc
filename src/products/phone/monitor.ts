import type { PhoneResult } from "./result";

/**
 * What a phone monitor watches (docs/phone.md, "Monitors"): validity, line type, the original carrier, the place and
 * the disposable list. A run posts `flags`: each number newly flagged, with the change flags it raised.
 */
export interface Observed extends Record<string, unknown> {
  valid: boolean;
  line_type: string;
  carrier: string | null;
  location: string | null;
  disposable: boolean | null;
}

const FIELDS = ["valid", "line_type", "carrier", "location", "disposable"] as const;

export const observe = (r: PhoneResult): Observed => ({ valid: r.valid, line_type: r.line_type, carrier: r.carrier, location: r.location, disposable: r.disposable });

export function compare(baseline: Record<string, unknown>, now: Record<string, unknown>) {
  return FIELDS.filter((field) => baseline[field] !== now[field]).map((field) => ({ field, from: baseline[field] ?? null, to: now[field] ?? null }));
}

export type ChangeFlag = "became_invalid" | "line_type_changed" | "carrier_changed" | "became_disposable";

/**
 * The change flags between a baseline and a new answer. A carrier that was or became unknown (a table not installed)
 * is not a carrier change; a number that was valid and is no longer only raises `became_invalid`.
 */
export function flags(baseline: Record<string, unknown>, now: Record<string, unknown>): ChangeFlag[] {
  const before = baseline as Observed;
  const after = now as Observed;
  if (before.valid && !after.valid) return ["became_invalid"];
  const raised: ChangeFlag[] = [];
  if (before.valid && after.valid && before.line_type !== after.line_type) raised.push("line_type_changed");
  if (before.carrier !== null && after.carrier !== null && before.carrier !== after.carrier) raised.push("carrier_changed");
  if (after.disposable === true && before.disposable !== true) raised.push("became_disposable");
  return raised;
}
