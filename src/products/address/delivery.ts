import type { ProductContext, WalkOptions } from "../../engines/product";
import { riskFields } from "../risk";
import { checkAddresses, isCovered } from "../../platform/delivery-points";
import { UNASKED, type DeliveryAnswer, type PartnerCheck } from "../../platform/partners/types";
import { addressKey } from "./key";
import { lookupAddresses } from "./lookup";
import type { AddressInput, AddressResult } from "./result";
import { RISK_POINTS, UNCHECKED } from "./score";

/**
 * Whether the lookup asks delivery points (`delivery_point: true`; a bulk run's older `deliverability` flag is only
 * recorded).
 */
export const wantsDeliveryPoint = (options: WalkOptions) => options.extra.delivery_point === true;

/** Whether an answer is one a partner is asked about: a valid address in a country a configured partner covers. */
export const checkable = (env: Env, r: AddressResult) => r.valid && isCovered(env, r.country);

/** `deliverable` from the partner's match: a confirmed delivery point, none, or a building whose unit is missing. */
const deliverableOf = (match: DeliveryAnswer["match"]) =>
  match === "missing_secondary" ? null : match !== "not_confirmed";

/**
 * The answer with the partner's delivery-point check applied (docs/address.md, "Delivery-point check"). The partner
 * decides what it was asked: a confirmed delivery point makes the address `verified` at `premise` precision, inside or
 * outside the open data's coverage; none (`not_confirmed`) makes it `invalid` with `no_delivery_point`; a building
 * whose unit is missing leaves the datasets' verdict. No partner answering leaves it unchecked, `partner_unavailable`.
 */
export function withDeliveryPoint(r: AddressResult, check: PartnerCheck<DeliveryAnswer>): AddressResult {
  // A partner's finding ranks before a sample's word, which stays on an answer the partner did not contradict.
  const open = r.reason === null || r.reason === "not_covered" || r.reason === "sample_data";
  if (check.answer === null)
    return { ...r, reason: open ? "partner_unavailable" : r.reason, sources: [...r.sources, ...check.sources] };
  const point = check.answer;
  const deliverable = deliverableOf(point.match);
  const components: Record<string, number> = { ...r.risk_components };
  // The partner checked the street and building (a unit it found missing aside): what the datasets' precision left
  // unchecked is its verdict now, and so is what only the format could be checked of.
  const checked = deliverable === null ? UNCHECKED.slice(0, 2) : UNCHECKED;
  for (const name of checked) delete components[name];
  if (deliverable !== null) delete components.unverifiable;
  if (deliverable === false) components.no_delivery_point = RISK_POINTS.no_delivery_point;
  if (point.vacant) components.vacant = RISK_POINTS.vacant;
  return {
    ...r,
    ...verdictOf(r, deliverable),
    deliverable,
    delivery_point: {
      match: point.match,
      vacant: point.vacant,
      residential: point.residential,
      standardized: point.standardized,
      footnotes: point.footnotes,
    },
    reason: !open ? r.reason : deliverable === false ? "no_delivery_point" : reasonAfterCheck(r, deliverable),
    ...riskFields(components),
    sources: [...r.sources, ...check.sources],
  };
}

/** The headline the partner's finding gives: verified at the premise it confirmed, invalid where it found none. */
function verdictOf(r: AddressResult, deliverable: boolean | null): Partial<AddressResult> {
  if (deliverable === true) return { valid: true, verification: "verified", precision: "premise" };
  if (deliverable === false) return { valid: false, verification: "invalid" };
  return { verification: r.verification, precision: r.precision };
}

/** A confirmed point is no longer "not covered"; a sample's rows still gave the postcode fields, so that stays said. */
const reasonAfterCheck = (r: AddressResult, deliverable: boolean | null) =>
  deliverable === true && r.reason === "not_covered" ? null : r.reason;

/** The lookup, then with `delivery_point: true` the partner's check of each distinct checkable address. */
export async function lookupWithDeliveryPoints(
  ctx: ProductContext,
  inputs: AddressInput[],
  options: WalkOptions,
): Promise<AddressResult[]> {
  const results = await lookupAddresses(ctx.env, inputs);
  if (!wantsDeliveryPoint(options)) return results;
  const asks = results.flatMap((r, i) =>
    checkable(ctx.env, r) ? [{ key: addressKey(inputs[i]!), query: { ...r.address, country: r.country } }] : [],
  );
  if (!asks.length) return results;
  const checks = await checkAddresses(ctx.env, ctx.accountId, asks);
  return results.map((r, i) => {
    if (!checkable(ctx.env, r)) return r;
    return withDeliveryPoint(r, checks.get(addressKey(inputs[i]!)) ?? UNASKED);
  });
}

/**
 * Units of a fresh answer: 1 for verified, 1 more when a partner checked it; nothing when one was asked and none did,
 * nor for an invalid answer (the address contract: `invalid` is free), a partner's `no_delivery_point` included.
 */
export const unitsOf = (r: AddressResult) =>
  r.reason === "partner_unavailable" || r.verification === "invalid"
    ? 0
    : (r.verification === "verified" ? 1 : 0) + (r.delivery_point ? 1 : 0);
