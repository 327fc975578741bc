import type { Database } from "../../db/client";
import type { Payer } from "../credits/credits";
import type { Product } from "../product";
import type { PolicyDecision } from "./policy";
import { readPolicy } from "./store";

/**
 * Stamps `policy` on every answer of a product that declares one: the account's decision, or null when the account has
 * no policy (or nobody's account is behind the call: the sandbox). Runs on what the walk returns, after billing and
 * after the answers were remembered, so the price never depends on it and stored answers never carry a stale one.
 */
export async function applyPolicy<In, Out>(db: Database, product: Product<In, Out>, payer: Payer | null, items: { data: Out }[]): Promise<void> {
  const shape = product.policy;
  if (!shape || !items.length) return;
  const row = payer ? await readPolicy(db, payer.accountId, product.name) : undefined;
  const rules = row ? shape.rules.parse(row.rules) : null;
  for (const item of items) {
    item.data = { ...item.data, policy: rules === null ? null : shape.evaluate(rules, item.data) };
  }
}

/** Bulk results of a product with a policy carry the decision in two columns, after the product's own. */
export const policyColumns = (product: Pick<Product, "policy">): string[] => (product.policy ? ["policy_action", "policy_rules_hit"] : []);

/** The two cells: the action and the rules hit, space-separated; empty when the account has no policy. */
export function policyCells(product: Pick<Product, "policy">, data: unknown): (string | null)[] {
  if (!product.policy) return [];
  const decision = (data as { policy?: PolicyDecision | null }).policy;
  return decision ? [decision.action, decision.rules_hit.join(" ")] : [null, null];
}
