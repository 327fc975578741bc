import { and, eq } from "drizzle-orm";
import { TtlCache } from "../platform/ttl-cache";
import type { Database } from "./client";
import { accounts, apiKeys, memberships } from "./schema";

/** One query for everything the key checks need: the key, its account's state and whether its holder is still a member. */
async function queryKey(db: Database, keyHash: string) {
  return db
    .select({
      id: apiKeys.id,
      kind: apiKeys.kind,
      accountId: apiKeys.accountId,
      userId: apiKeys.userId,
      scopes: apiKeys.scopes,
      allowedIps: apiKeys.allowedIps,
      allowedDomains: apiKeys.allowedDomains,
      dailyCreditCap: apiKeys.dailyCreditCap,
      challengeSecret: apiKeys.challengeSecret,
      revokedAt: apiKeys.revokedAt,
      emailVerified: accounts.emailVerified,
      memberUserId: memberships.userId,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .leftJoin(memberships, and(eq(memberships.accountId, apiKeys.accountId), eq(memberships.userId, apiKeys.userId)))
    .where(eq(apiKeys.keyHash, keyHash))
    .get();
}

export type StoredKey = NonNullable<Awaited<ReturnType<typeof queryKey>>>;

/**
 * Key rows are cached per isolate for a few seconds: the lookup is the only database read on most requests. The
 * operator routes that change what a key may do forget the cache at once in their own isolate; elsewhere a revocation,
 * a member's removal or an email confirmation takes effect within KEY_CACHE_TTL_MS (docs/authentication.md).
 */
export const KEY_CACHE_TTL_MS = 10_000;
const keyCache = new TtlCache<StoredKey | null>(50_000);

export async function findKeyByHash(db: Database, keyHash: string): Promise<StoredKey | null> {
  const cached = keyCache.get(keyHash);
  if (cached !== undefined) return cached;
  const key = (await queryKey(db, keyHash)) ?? null;
  keyCache.set(keyHash, key, KEY_CACHE_TTL_MS);
  return key;
}

export const forgetCachedKeys = () => keyCache.clear();

/** A key whose holder has left the account (KEY_ACCOUNT_MISMATCH). Keys created without a holder never mismatch. */
export const holderLeft = (key: StoredKey) => key.userId !== null && key.memberUserId === null;
