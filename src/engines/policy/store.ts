import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { policies } from "../../db/schema";

/** Every D1 query of the policy engine: one row per (account, product). */
export type PolicyRow = typeof policies.$inferSelect;

export async function readPolicy(db: Database, accountId: string, product: string): Promise<PolicyRow | undefined> {
  return db.select().from(policies).where(and(eq(policies.accountId, accountId), eq(policies.product, product))).get();
}

/** When the account's policy last changed, without reading its rules (the hot path's check against its cache). */
export async function policyStamp(db: Database, accountId: string, product: string): Promise<number | undefined> {
  const row = await db.select({ updatedAt: policies.updatedAt }).from(policies).where(and(eq(policies.accountId, accountId), eq(policies.product, product))).get();
  return row?.updatedAt;
}

/** Replaces the account's rules (creating the policy on first PUT) and returns the row as it now stands. */
export async function writePolicy(db: Database, accountId: string, product: string, rules: Record<string, unknown>, now: number): Promise<PolicyRow> {
  const [row] = await db
    .insert(policies)
    .values({ accountId, product, rules, createdAt: now, updatedAt: now })
    // updated_at always moves forward, even for two PUTs in one millisecond: isolates cache rules by it.
    .onConflictDoUpdate({ target: [policies.accountId, policies.product], set: { rules, updatedAt: sql`max(${now}, ${policies.updatedAt} + 1)` } })
    .returning();
  return row!;
}

/** Removes the policy; true when there was one. */
export async function deletePolicy(db: Database, accountId: string, product: string): Promise<boolean> {
  const deleted = await db.delete(policies).where(and(eq(policies.accountId, accountId), eq(policies.product, product))).returning({ product: policies.product });
  return deleted.length > 0;
}
