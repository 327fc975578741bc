import { z } from "zod";

/**
 * Sending policies: per-account rules that turn an answer into an action. A product declares its rule schema and an
 * evaluator; the engine stores one policy per (account, product), serves `GET, PUT, DELETE /{product}/policy` and
 * stamps `policy: {action, rules_hit}` (null without a policy) on every answer the walk returns. A policy never
 * changes the price: it is applied after the answer has been paid for and remembered.
 */
export const POLICY_ACTIONS = ["send", "review", "block"] as const;

export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** The decision every answer of a product with a policy carries (null without one), for response schemas. */
export const policyDecisionSchema = z
  .object({ action: z.enum(POLICY_ACTIONS), rules_hit: z.array(z.string()) })
  .nullable();

/** What a policy says about one answer: the action and the names of the rules that decided it. */
export interface PolicyDecision {
  action: PolicyAction;
  rules_hit: string[];
}

/** A product's policy: the rule schema PUT validates, and the evaluator the walk runs on every answer. */
export interface PolicyShape<Out, Rules = unknown> {
  rules: z.ZodType<Rules>;
  evaluate(rules: Rules, result: Out): PolicyDecision;
}

/** One rule that matched an answer, with the action it asks for. */
export interface PolicyHit {
  rule: string;
  action: PolicyAction;
}

const SEVERITY: Record<PolicyAction, number> = { send: 0, review: 1, block: 2 };

/**
 * The strictest action among the rules that matched (block > review > send); `rules_hit` names every rule that asked
 * for more than `send`, in the order the product evaluated them. No hit is `send` with no rules.
 */
export function strictest(hits: PolicyHit[]): PolicyDecision {
  const asking = hits.filter((h) => h.action !== "send");
  const action = asking.reduce<PolicyAction>(
    (worst, h) => (SEVERITY[h.action] > SEVERITY[worst] ? h.action : worst),
    "send",
  );
  return { action, rules_hit: asking.map((h) => h.rule) };
}
