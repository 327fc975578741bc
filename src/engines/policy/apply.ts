import { database, replicaReads, type Database } from "../../db/client";
import { accountObject, type Payer } from "../credits/credits";
import type { Defer, Product } from "../product";
import type { PolicyDecision, PolicyShape } from "./policy";
import { policyStamp, readPolicy, type PolicyRow } from "./store";

/** Rules read and parsed per isolate, by account and product, valid while the policy's `updated_at` is unchanged. */
const parsed = new Map<string, { updatedAt: number; rules: unknown }>();
const PARSED_MAX = 1000;

/** Whose rules a read is for: the account (the payer), the product and its rules' schema, and the request's defer. */
interface RulesRead {
  env: Env;
  product: string;
  schema: PolicyShape<unknown>["rules"];
  payer: Payer;
  defer?: Defer | undefined;
}

function parse(cacheKey: string, row: PolicyRow, schema: PolicyShape<unknown>["rules"]): unknown {
  const rules = schema.parse(row.rules);
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(cacheKey, { updatedAt: row.updatedAt, rules });
  return rules;
}

/**
 * A policy the account's object does not know yet (the account's first lookup of the product since the object kept
 * versions): its row is read through the replica session and the object is taught its version after the answer, so
 * the lookup makes no D1 primary query and no second call to the object before it answers. A replica is safe here
 * because every policy write (`writePolicy`, `deletePolicy`) tells the object the new version right after writing
 * D1: an object that does not know a version has seen no write since versions were kept, so the row is old and
 * replicated. A write under way meanwhile is no worse than with the primary (the lookup ran before the PUT
 * answered), and its `set` wins over this `learn` whichever lands first (`PolicyStamps`).
 */
async function unknownToObject({ env, product, schema, payer, defer }: RulesRead): Promise<unknown> {
  const row = await readPolicy(database(replicaReads(env)), payer.accountId, product);
  const teach = () => accountObject(env, payer.accountId).learnPolicyStamp(product, row?.updatedAt ?? 0);
  if (defer)
    defer(() =>
      teach().catch((err) =>
        console.error(JSON.stringify({ event: "policy_stamp_teach_failed", product, error: String(err) })),
      ),
    );
  else await teach();
  return row ? parse(`${payer.accountId}:${product}`, row, schema) : null;
}

/**
 * The account's rules, parsed (up to 2,000 domains) only when this isolate has not parsed that version yet. An HTTP
 * request learned the version (`updated_at`, 0 for none) from the account's object in the call that admitted it;
 * queued work (no admission) reads it from D1. A PUT anywhere changes `updated_at` and tells the account's object, so
 * no isolate answers with an old policy: the rules are read through the replica session, and from the primary only
 * when the replica has not caught up with the version the object named.
 */
async function rulesOf(read: RulesRead): Promise<unknown> {
  const { env, product, schema, payer } = read;
  const accountId = payer.accountId;
  const known = payer.admission?.policies;
  if (known && known[product] === undefined) return unknownToObject(read);
  const primary: Database = database(env);
  const stamp = known ? known[product]! : ((await policyStamp(primary, accountId, product)) ?? 0);
  if (stamp === 0) return null;
  const cacheKey = `${accountId}:${product}`;
  const cached = parsed.get(cacheKey);
  if (cached?.updatedAt === stamp) return cached.rules;
  let row = await readPolicy(database(replicaReads(env)), accountId, product);
  if (!row || row.updatedAt < stamp) row = await readPolicy(primary, accountId, product);
  return row ? parse(cacheKey, row, schema) : null;
}

/**
 * Stamps `policy` on every answer of a product that declares one: the account's decision, or null when the account has
 * no policy (or nobody's account is behind the call: the sandbox). Runs on what the walk returns, after billing and
 * after the answers were remembered, so the price never depends on it and stored answers never carry a stale one.
 */
export async function applyPolicy<In, Out>(stamp: {
  env: Env;
  product: Pick<Product<In, Out>, "name" | "policy">;
  payer: Payer | null;
  items: { data: Out }[];
  defer?: Defer | undefined;
}): Promise<void> {
  const { env, product, payer, items, defer } = stamp;
  const shape = product.policy;
  if (!shape || !items.length) return;
  const rules = payer ? await rulesOf({ env, product: product.name, schema: shape.rules, payer, defer }) : null;
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
