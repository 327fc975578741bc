import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { accounts, apiKeys, memberships } from "./schema";

/**
 * One query for everything the key checks need: the key, its account's state and whether its holder is still a member,
 * plus the account fields `GET /account` shows, so that route needs no read of its own.
 */
export async function queryKeyByHash(db: Database, keyHash: string) {
  const row = await db
    .select({
      id: apiKeys.id,
      kind: apiKeys.kind,
      keyHash: apiKeys.keyHash,
      accountId: apiKeys.accountId,
      userId: apiKeys.userId,
      scopes: apiKeys.scopes,
      allowedIps: apiKeys.allowedIps,
      allowedDomains: apiKeys.allowedDomains,
      dailyCreditCap: apiKeys.dailyCreditCap,
      challengeSecret: apiKeys.challengeSecret,
      revokedAt: apiKeys.revokedAt,
      holderLeftAt: apiKeys.holderLeftAt,
      emailVerified: accounts.emailVerified,
      accountEmail: accounts.email,
      accountCreatedAt: accounts.createdAt,
      memberUserId: memberships.userId,
      memberAcceptedAt: memberships.acceptedAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .leftJoin(memberships, and(eq(memberships.accountId, apiKeys.accountId), eq(memberships.userId, apiKeys.userId)))
    .where(eq(apiKeys.keyHash, keyHash))
    .get();
  return row ?? null;
}

export type StoredKey = NonNullable<Awaited<ReturnType<typeof queryKeyByHash>>>;

/**
 * When a person revoked the key (401), or null. A revocation at the very instant its holder left is no person's: the
 * release before 0036 revoked a removed member's keys, and 0036 records their departure at that instant, keeping
 * `revoked_at` so that release, still serving while the update rolls out, refuses them too; they answer as departed.
 */
export const revokedByPerson = (key: { revokedAt: number | null; holderLeftAt: number | null }) =>
  key.revokedAt !== null && key.revokedAt !== key.holderLeftAt ? key.revokedAt : null;

/**
 * A key whose holder is not an accepted member of the account (KEY_ACCOUNT_MISMATCH): marked when they were removed on
 * the dashboard (for good: a later membership revives none of their keys), or without an accepted membership now
 * (detached by the operator, or invited again and not yet accepted: a pending invitation makes no keys of its own).
 * Keys created without a holder never mismatch.
 */
export const holderLeft = (key: StoredKey) =>
  key.userId !== null && (key.holderLeftAt !== null || key.memberUserId === null || key.memberAcceptedAt === null);
