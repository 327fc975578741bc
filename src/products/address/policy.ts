import { z } from "zod";
import { POLICY_ACTIONS, strictest, type PolicyHit, type PolicyShape } from "../../engines/policy/policy";
import { isCountry } from "./postcodes";
import { ADDRESS_REASONS, type AddressResult } from "./result";
import { countrySchema } from "./schemas";

/**
 * The address sending policy (docs/address.md, "Sending policy"). Each rule names an action for answers it matches;
 * the answer's action is the strictest asked (block > review > send) and `rules_hit` names the rules that asked for
 * more than send. Countries are a shipping list: `blocked_countries` always blocks, and with `allowed_countries` an
 * address in any other country is blocked.
 */
const action = z.enum(POLICY_ACTIONS);

const countries = z
  .array(countrySchema.refine((code) => isCountry(code) || code === "ZZ", "Not an ISO 3166-1 country code."))
  .min(1)
  .max(250);

export const addressPolicyRules = z.strictObject({
  verification: z.strictObject({ verified: action, format_only: action, invalid: action }).partial().optional(),
  risk_level: z.strictObject({ low: action, medium: action, high: action }).partial().optional(),
  reasons: z.partialRecord(z.enum(ADDRESS_REASONS), action).optional(),
  po_box: action.optional(),
  /** The answer corrected a part of the address (postcode, locality or region). */
  corrections: action.optional(),
  /** The answer has no confirmed delivery point (`deliverable` is not true): requires a delivery-point check. */
  delivery_point: action.optional(),
  allowed_countries: countries.optional(),
  blocked_countries: countries.optional(),
});

export type AddressPolicyRules = z.infer<typeof addressPolicyRules>;

export function evaluateAddressPolicy(rules: AddressPolicyRules, r: AddressResult) {
  const hits: PolicyHit[] = [];
  const hit = (rule: string, asked: PolicyHit["action"] | undefined) => asked && hits.push({ rule, action: asked });
  if (rules.blocked_countries?.includes(r.country)) hit("blocked_countries", "block");
  if (rules.allowed_countries && !rules.allowed_countries.includes(r.country)) hit("allowed_countries", "block");
  hit(`verification.${r.verification}`, rules.verification?.[r.verification]);
  hit(`risk_level.${r.risk_level}`, rules.risk_level?.[r.risk_level]);
  if (r.reason) hit(`reasons.${r.reason}`, rules.reasons?.[r.reason]);
  if (r.po_box) hit("po_box", rules.po_box);
  if (r.corrections.length) hit("corrections", rules.corrections);
  if (r.deliverable !== true) hit("delivery_point", rules.delivery_point);
  return strictest(hits);
}

export const addressPolicy: PolicyShape<AddressResult, AddressPolicyRules> = {
  rules: addressPolicyRules,
  evaluate: evaluateAddressPolicy,
};
