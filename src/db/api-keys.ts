import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "./client";
import { apiKeys } from "./schema";

export type ApiKey = typeof apiKeys.$inferSelect;

/** Whether a key can still act: neither revoked nor left behind by a departed holder (lists of keys to pick). */
export const isLiveKey = (key: ApiKey) => key.revokedAt === null && key.holderLeftAt === null;

/** Stores a newly minted key (its hash only) and returns the stored row. */
export async function insertApiKey(db: Database, key: typeof apiKeys.$inferInsert): Promise<ApiKey> {
  const [row] = await db.insert(apiKeys).values(key).returning();
  if (!row) throw new Error("api_keys insert returned no row");
  return row;
}

/** Revokes the key if it is not revoked yet; returns its row either way, or undefined when no key has this id. */
export async function revokeApiKey(db: Database, keyId: string, now: number): Promise<ApiKey | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? (await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get());
}

/** The account's keys, newest first (revoked ones too: lists show when they stopped). */
export function accountKeys(db: Database, accountId: string): Promise<ApiKey[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.createdAt)).all();
}

/** The key with this id if it belongs to the account. */
export function accountKey(db: Database, accountId: string, keyId: string): Promise<ApiKey | undefined> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
    .get();
}

/**
 * Marks every live key the member holds on the account as a departed holder's (a query to await or batch): at their
 * removal on the dashboard, and when a non-member is invited, so a key from an earlier membership answers
 * KEY_ACCOUNT_MISMATCH for good (docs/dashboard.md). Revoked keys stay as they are: a person revoked them (401).
 */
export const markHolderLeft = (db: Database, holder: { accountId: string; userId: string; now: number }) =>
  db
    .update(apiKeys)
    .set({ holderLeftAt: holder.now })
    .where(
      and(
        eq(apiKeys.accountId, holder.accountId),
        eq(apiKeys.userId, holder.userId),
        isNull(apiKeys.revokedAt),
        isNull(apiKeys.holderLeftAt),
      ),
    );
