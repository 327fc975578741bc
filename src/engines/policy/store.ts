import { and, eq, sql } from "drizzle-orm";
import { database, type Database } from "../../db/client";
import { policies } from "../../db/schema";
import { accountObject } from "../credits/credits";

/** Every D1 query of the policy engine: one row per (account, product). */
export type PolicyRow = typeof policies.$inferSelect;

export async function readPolicy(db: Database, accountId: string, product: string): Promise<PolicyRow | undefined> {
  return db
    .select()
    .from(policies)
    .where(and(eq(policies.accountId, accountId), eq(policies.product, product)))
    .get();
}

/** When the account's policy last changed, without reading its rules (the hot path's check against its cache). */
export async function policyStamp(db: Database, accountId: string, product: string): Promise<number | undefined> {
  const row = await db
    .select({ updatedAt: policies.updatedAt })
    .from(policies)
    .where(and(eq(policies.accountId, accountId), eq(policies.product, product)))
    .get();
  return row?.updatedAt;
}

/**
 * Replaces the account's rules (creating the policy on first PUT) and returns the row as it now stands. The account's
 * object learns the new version in the same call, so every isolate's next request of the account reads it.
 */
export async function writePolicy(write: {
  env: Env;
  accountId: string;
  product: string;
  rules: Record<string, unknown>;
  now: number;
}): Promise<PolicyRow> {
  const { env, accountId, product, rules, now } = write;
  const [row] = await database(env)
    .insert(policies)
    .values({ accountId, product, rules, createdAt: now, updatedAt: now })
    // updated_at always moves forward, even for two PUTs in one millisecond: isolates cache rules by it.
    .onConflictDoUpdate({
      target: [policies.accountId, policies.product],
      set: { rules, updatedAt: sql`max(${now}, ${policies.updatedAt} + 1)` },
    })
    .returning();
  await accountObject(env, accountId).setPolicyStamp(product, row!.updatedAt);
  return row!;
}

/** Removes the policy (version 0 for the account's object); true when there was one. */
export async function deletePolicy(env: Env, accountId: string, product: string): Promise<boolean> {
  const deleted = await database(env)
    .delete(policies)
    .where(and(eq(policies.accountId, accountId), eq(policies.product, product)))
    .returning({ product: policies.product });
  await accountObject(env, accountId).setPolicyStamp(product, 0);
  return deleted.length > 0;
}
