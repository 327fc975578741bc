import type { ProductContext, WalkOptions } from "../../engines/product";
import { riskFields } from "../risk";
import { checkAddresses, isCovered } from "../../platform/delivery-points";
import type { Checked, DeliveryAnswer } from "../../platform/partners/types";
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
 * The answer with the partner's delivery-point check applied (docs/address.md, "Delivery-point check"); `null` (no
 * partner answered) leaves it unchecked with `partner_unavailable`. Verification and precision stay the datasets'.
 */
export function withDeliveryPoint(r: AddressResult, check: Checked<DeliveryAnswer> | null): AddressResult {
  // A partner's finding ranks before a sample's word, which stays on an answer the partner did not contradict.
  const open = r.reason === null || r.reason === "not_covered" || r.reason === "sample_data";
  if (!check) return { ...r, reason: open ? "partner_unavailable" : r.reason };
  const point = check.answer;
  const deliverable = deliverableOf(point.match);
  const components: Record<string, number> = { ...r.risk_components };
  // The partner checked the street and building (a unit it found missing aside): what the datasets' precision left
  // unchecked is its verdict now, `no_delivery_point` when it found none. The precision stays the datasets'.
  const checked = deliverable === null ? UNCHECKED.slice(0, 2) : UNCHECKED;
  for (const name of checked) delete components[name];
  if (deliverable === false) components.no_delivery_point = RISK_POINTS.no_delivery_point;
  if (point.vacant) components.vacant = RISK_POINTS.vacant;
  return {
    ...r,
    deliverable,
    delivery_point: {
      match: point.match,
      vacant: point.vacant,
      residential: point.residential,
      standardized: point.standardized,
      footnotes: point.footnotes,
    },
    reason: deliverable === false && open ? "no_delivery_point" : r.reason,
    ...riskFields(components),
    sources: [...r.sources, check.source],
  };
}

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
    return withDeliveryPoint(r, checks.get(addressKey(inputs[i]!)) ?? null);
  });
}

/**
 * Units of a fresh answer: 1 for verified, 1 more when a partner checked it, nothing when one was asked and none did.
 */
export const unitsOf = (r: AddressResult) =>
  r.reason === "partner_unavailable" ? 0 : (r.verification === "verified" ? 1 : 0) + (r.delivery_point ? 1 : 0);
