import type { AddressReason, Precision } from "./result";
import { riskFields } from "../risk";

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
  /** A verified address located short of its street: nothing confirmed that line 1's street exists there. */
  street_unchecked: 15,
  /** ... and short of its locality (`precision: postcode`). */
  locality_unchecked: 5,
  /** A verified address located to its street, not to its house number (no premise register, or none listing it). */
  premise_unchecked: 5,
} as const;

export type RiskComponent = keyof typeof RISK_POINTS;

/** A check an answer can fail, each a risk component (feedback reasons are not checks). */
export type CheckFailure = Extract<AddressReason, RiskComponent>;

/** What the precision of a verified address left unchecked, as risk components (docs/address.md, "Risk score"). */
export const UNCHECKED = ["locality_unchecked", "street_unchecked", "premise_unchecked"] as const;

function uncheckedAt(precision: Precision | null): RiskComponent[] {
  if (precision === "postcode") return ["locality_unchecked", "street_unchecked"];
  if (precision === "locality") return ["street_unchecked"];
  if (precision === "street") return ["premise_unchecked"];
  return [];
}

/**
 * Components from every check the answer failed, whether it could only be format-checked, whether it is a PO box, and,
 * for a verified address (`verified` at), what its precision did not reach: a street nobody checked never scores as
 * safe as one a register listed.
 */
export function risk(facts: {
  failed: readonly CheckFailure[];
  formatOnly: boolean;
  poBox: boolean;
  verifiedAt?: Precision | null;
}) {
  const names: RiskComponent[] = [...facts.failed];
  if (facts.formatOnly) names.push("unverifiable");
  if (facts.poBox) names.push("po_box");
  names.push(...uncheckedAt(facts.verifiedAt ?? null));
  return riskFields(Object.fromEntries(names.map((name) => [name, RISK_POINTS[name]])));
}
