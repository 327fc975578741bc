import { z } from "zod";
import { POLICY_ACTIONS, strictest, type PolicyHit, type PolicyShape } from "../../engines/policy/policy";
import { LINE_TYPES, PHONE_REASONS, type PhoneResult } from "./result";

/**
 * The phone sending policy (docs/phone.md, "Sending policy"). Each rule names an action for answers it matches; the
 * answer's action is the strictest asked (block > review > send) and `rules_hit` names the rules that asked for more
 * than send. `allowed_countries` is an allowlist: a valid number of any other country is blocked.
 */
const action = z.enum(POLICY_ACTIONS);

const countries = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2).")
      .transform((c) => c.toUpperCase()),
  )
  .max(250);

export const phonePolicyRules = z.strictObject({
  allowed_countries: countries.optional(),
  blocked_countries: countries.optional(),
  line_types: z.partialRecord(z.enum(LINE_TYPES), action).optional(),
  risk_level: z.strictObject({ low: action, medium: action, high: action }).partial().optional(),
  reasons: z.partialRecord(z.enum(PHONE_REASONS), action).optional(),
  disposable: action.optional(),
});

export type PhonePolicyRules = z.infer<typeof phonePolicyRules>;

/**
 * Country rules only judge valid numbers (an invalid one has no country; `reasons.invalid_number` judges those).
 * Rules are evaluated in the order docs/phone.md lists them, which is the order of `rules_hit`.
 */
export function evaluatePhonePolicy(rules: PhonePolicyRules, r: PhoneResult) {
  const hits: PolicyHit[] = [];
  const hit = (rule: string, asked: PolicyHit["action"] | undefined) => asked && hits.push({ rule, action: asked });
  if (r.country && rules.allowed_countries && !rules.allowed_countries.includes(r.country))
    hit("allowed_countries", "block");
  if (r.country && rules.blocked_countries?.includes(r.country)) hit("blocked_countries", "block");
  if (r.valid) hit(`line_types.${r.line_type}`, rules.line_types?.[r.line_type]);
  hit(`risk_level.${r.risk_level}`, rules.risk_level?.[r.risk_level]);
  if (r.reason) hit(`reasons.${r.reason}`, rules.reasons?.[r.reason]);
  if (r.disposable) hit("disposable", rules.disposable);
  return strictest(hits);
}

export const phonePolicy: PolicyShape<PhoneResult, PhonePolicyRules> = {
  rules: phonePolicyRules,
  evaluate: evaluatePhonePolicy,
};
