import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { accounts, apiKeys, memberships } from "./schema";

/** One query for everything the key checks need: the key, its account's state and whether its holder is still a member. */
export async function findKeyByHash(db: Database, keyHash: string) {
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

export type StoredKey = NonNullable<Awaited<ReturnType<typeof findKeyByHash>>>;

/** A key whose holder has left the account (KEY_ACCOUNT_MISMATCH). Keys created without a holder never mismatch. */
export const holderLeft = (key: StoredKey) => key.userId !== null && key.memberUserId === null;
