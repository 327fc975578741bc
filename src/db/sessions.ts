import { and, eq, gt, lt } from "drizzle-orm";
import type { Database } from "./client";
import { authChallenges, dashboardSessions, memberships, users } from "./schema";

export type SessionRow = typeof dashboardSessions.$inferSelect;

/** Stores a new session (its hash only). */
export async function insertSession(db: Database, row: SessionRow): Promise<void> {
  await db.insert(dashboardSessions).values(row);
}

/**
 * The live session with this hash and its user's role in the session's account, in one query; undefined when the
 * session is unknown or expired, or its user is no longer a member of that account.
 */
export async function liveSession(db: Database, idHash: string, now: number) {
  return db
    .select({ session: dashboardSessions, role: memberships.role, email: users.email })
    .from(dashboardSessions)
    .innerJoin(
      memberships,
      and(eq(memberships.accountId, dashboardSessions.accountId), eq(memberships.userId, dashboardSessions.userId)),
    )
    .innerJoin(users, eq(users.id, dashboardSessions.userId))
    .where(and(eq(dashboardSessions.idHash, idHash), gt(dashboardSessions.expiresAt, now)))
    .get();
}

/** Ends one session. */
export async function deleteSession(db: Database, idHash: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.idHash, idHash));
}

/** Ends every session of a user (sign out everywhere); returns how many there were. */
export async function deleteUserSessions(db: Database, userId: string, accountId?: string): Promise<number> {
  const where = accountId
    ? and(eq(dashboardSessions.userId, userId), eq(dashboardSessions.accountId, accountId))
    : eq(dashboardSessions.userId, userId);
  return (await db.delete(dashboardSessions).where(where).returning({ id: dashboardSessions.idHash })).length;
}

/** Stores a WebAuthn challenge handed to a browser. */
export async function insertChallenge(db: Database, row: typeof authChallenges.$inferSelect): Promise<void> {
  await db.delete(authChallenges).where(lt(authChallenges.expiresAt, row.expiresAt - 3_600_000));
  await db.insert(authChallenges).values(row);
}

/** Takes a live challenge once: a second use finds nothing. */
export async function takeChallenge(
  db: Database,
  id: string,
  now: number,
): Promise<typeof authChallenges.$inferSelect | undefined> {
  const [row] = await db.delete(authChallenges).where(eq(authChallenges.id, id)).returning();
  return row && row.expiresAt > now ? row : undefined;
}
