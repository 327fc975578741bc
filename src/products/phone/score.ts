import type { LineType, PhoneResult } from "./result";
import { riskFields } from "../risk";

/**
 * Risk points (docs/phone.md, "Risk"), each read from a field of the answer so anyone can recompute the score: the
 * score is their sum capped at 100; `low` 0-29, `medium` 30-69, `high` 70-100.
 */
const LINE_TYPE_POINTS: Partial<Record<LineType, number>> = {
  premium_rate: 60,
  voicemail: 40,
  voip: 30,
  pager: 20,
  personal_number: 20,
  shared_cost: 15,
  toll_free: 15,
  uan: 15,
  unknown: 10,
};

type Scored = Pick<PhoneResult, "valid" | "line_type" | "disposable" | "reason"> &
  Partial<Pick<PhoneResult, "network_status">>;

export function riskComponents(a: Scored): Record<string, number> {
  if (!a.valid) return { invalid_number: 100 };
  const parts: Record<string, number> = {};
  if (a.reason === "undelivered") parts.undelivered = 100;
  if (a.network_status === "inactive") parts.inactive = 70;
  if (a.disposable) parts.disposable = 80;
  const points = LINE_TYPE_POINTS[a.line_type];
  if (points) parts[a.line_type] = points;
  return parts;
}

/** `risk_score`, `risk_level` and `risk_components` of an answer. */
export function scored(a: Scored) {
  return riskFields(riskComponents(a));
}
