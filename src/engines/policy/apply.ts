import type { Database } from "../../db/client";
import { creditsStub, type Payer } from "../credits/credits";
import type { Product } from "../product";
import type { PolicyDecision, PolicyShape } from "./policy";
import { policyStamp, readPolicy } from "./store";

/** Rules read and parsed per isolate, by account and product, valid while the policy's `updated_at` is unchanged. */
const parsed = new Map<string, { updatedAt: number; rules: unknown }>();
const PARSED_MAX = 1000;

/**
 * The policy's version (`updated_at`; undefined when there is none). An HTTP request learned it from the account's
 * object in the call that admitted it, so it costs no read; when that object did not know it yet (a policy written
 * before it kept versions), D1 answers once and the object is taught it. Queued work reads D1.
 */
async function versionOf(env: Env, db: Database, product: string, payer: Payer): Promise<number | undefined> {
  const known = payer.admission?.policies;
  const version = known?.[product];
  if (version !== undefined) return version === 0 ? undefined : version;
  const stamp = await policyStamp(db, payer.accountId, product);
  if (known) await creditsStub(env, payer.accountId).learnPolicyStamp(product, stamp ?? 0);
  return stamp;
}

/**
 * The account's rules, parsed (up to 2,000 domains) only when this isolate has not parsed that version yet. A PUT
 * anywhere changes `updated_at` and tells the account's object, so no isolate answers with an old policy.
 */
async function rulesOf(
  env: Env,
  db: Database,
  product: string,
  schema: PolicyShape<unknown>["rules"],
  payer: Payer,
): Promise<unknown> {
  const accountId = payer.accountId;
  const cacheKey = `${accountId}:${product}`;
  const stamp = await versionOf(env, db, product, payer);
  if (stamp === undefined) return null;
  const cached = parsed.get(cacheKey);
  if (cached?.updatedAt === stamp) return cached.rules;
  const row = await readPolicy(db, accountId, product);
  if (!row) return null;
  const rules = schema.parse(row.rules);
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(cacheKey, { updatedAt: row.updatedAt, rules });
  return rules;
}

/**
 * Stamps `policy` on every answer of a product that declares one: the account's decision, or null when the account has
 * no policy (or nobody's account is behind the call: the sandbox). Runs on what the walk returns, after billing and
 * after the answers were remembered, so the price never depends on it and stored answers never carry a stale one.
 */
export async function applyPolicy<In, Out>(
  env: Env,
  db: Database,
  product: Product<In, Out>,
  payer: Payer | null,
  items: { data: Out }[],
): Promise<void> {
  const shape = product.policy;
  if (!shape || !items.length) return;
  const rules = payer ? await rulesOf(env, db, product.name, shape.rules, payer) : null;
  for (const item of items) {
    item.data = { ...item.data, policy: rules === null ? null : shape.evaluate(rules, item.data) };
  }
}

/** Bulk results of a product with a policy carry the decision in two columns, after the product's own. */
export const policyColumns = (product: Pick<Product, "policy">): string[] =>
  product.policy ? ["policy_action", "policy_rules_hit"] : [];

/** The two cells: the action and the rules hit, space-separated; empty when the account has no policy. */
export function policyCells(product: Pick<Product, "policy">, data: unknown): (string | null)[] {
  if (!product.policy) return [];
  const decision = (data as { policy?: PolicyDecision | null }).policy;
  return decision ? [decision.action, decision.rules_hit.join(" ")] : [null, null];
}
