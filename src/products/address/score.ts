import type { AddressReason } from "./result";
import { riskFields, riskLevel } from "../risk";

/**
 * The risk formula (docs/address.md): each component that applies adds its points, the score is their sum capped at
 * 100, and the level is read from the score (`low` 0-29, `medium` 30-69, `high` 70-100). Everything it reads is a
 * field of the answer, so a user can recompute it.
 */
export const RISK_POINTS = {
  unsupported_country: 100,
  invalid_postcode_format: 70,
  unknown_postcode: 70,
  locality_mismatch: 50,
  missing_components: 40,
  region_mismatch: 30,
  /** `verification: format_only`: nothing but the format could be checked. */
  unverifiable: 30,
  po_box: 10,
  suppressed: 100,
  /** A delivery-point partner confirmed no delivery point (`deliverable: false`). */
  no_delivery_point: 60,
  /** The partner reports the delivery point vacant. */
  vacant: 30,
} as const;

export type RiskComponent = keyof typeof RISK_POINTS;

/** A check an answer can fail, each a risk component (feedback reasons are not checks). */
export type CheckFailure = Extract<AddressReason, RiskComponent>;

export { riskLevel };

/**
 * Components from every check the answer failed, whether it could only be format-checked, and whether it is a PO box.
 */
export function risk(facts: { failed: readonly CheckFailure[]; formatOnly: boolean; poBox: boolean }) {
  const names: RiskComponent[] = [...facts.failed];
  if (facts.formatOnly) names.push("unverifiable");
  if (facts.poBox) names.push("po_box");
  return riskFields(Object.fromEntries(names.map((name) => [name, RISK_POINTS[name]])));
}
