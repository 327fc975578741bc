import { and, asc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Database } from "./client";
import { markHolderLeft } from "./api-keys";
import { memberships, users } from "./schema";

const membership = (accountId: string, userId: string) =>
  and(eq(memberships.accountId, accountId), eq(memberships.userId, userId));

/** How long an invitation can be accepted (docs/dashboard.md, "Accounts, members and roles"). */
export const INVITATION_VALID_MS = 7 * 24 * 3_600_000;

/** A membership that counts: accepted, or an invitation still within its validity. */
const live = (now: number) =>
  or(isNotNull(memberships.acceptedAt), gt(memberships.createdAt, now - INVITATION_VALID_MS));

export type MemberStatus = "accepted" | "invited" | "lapsed";

/** Where a membership stands: accepted, invited (pending, within validity) or lapsed (pending past it). */
export const memberStatus = (row: { createdAt: number; acceptedAt: number | null }, now = Date.now()): MemberStatus =>
  row.acceptedAt !== null ? "accepted" : row.createdAt > now - INVITATION_VALID_MS ? "invited" : "lapsed";

/** The id of the user with this (lower-cased) email, or undefined when there is none. */
export async function userIdByEmail(db: Database, email: string): Promise<string | undefined> {
  return (await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get())?.id;
}

/** Creates a user, who belongs to no account until a membership is added. */
export async function insertUser(db: Database, user: { id: string; email: string; createdAt: number }): Promise<void> {
  await db.insert(users).values(user);
}

/** Removes the user from the account; false when they were not a member. Their keys answer KEY_ACCOUNT_MISMATCH. */
export async function removeMembership(db: Database, accountId: string, userId: string): Promise<boolean> {
  const removed = await db.delete(memberships).where(membership(accountId, userId)).returning();
  return removed.length > 0;
}

/**
 * Removes the user from the account and marks, in the same batch, every live key they hold there as a departed
 * holder's (the dashboard's removal): the keys answer KEY_ACCOUNT_MISMATCH for good, so inviting the address again
 * revives none of them; keys the member makes after accepting are new ones. False when they were not a member.
 */
export async function removeMemberWithKeys(
  db: Database,
  removal: { accountId: string; userId: string; now: number },
): Promise<boolean> {
  const [, removed] = await db.batch([
    markHolderLeft(db, removal),
    db
      .delete(memberships)
      .where(membership(removal.accountId, removal.userId))
      .returning({ userId: memberships.userId }),
  ]);
  return removed.length > 0;
}

/** Whether the user is a member of the account. */
export async function isMember(db: Database, accountId: string, userId: string): Promise<boolean> {
  return (await db.select().from(memberships).where(membership(accountId, userId)).get()) !== undefined;
}

export type Role = "owner" | "member";

/**
 * Makes the user a member with this role: accepted at once (`acceptedAt`: an account's first owner, a member the
 * operator adds) or invited (null). An existing membership keeps its role, except a lapsed invitation, which this
 * one replaces (a new invitation, valid from now).
 */
export async function addMemberWithRole(
  db: Database,
  member: { accountId: string; userId: string; role: Role; now: number; acceptedAt: number | null },
): Promise<void> {
  const { accountId, userId, role, now, acceptedAt } = member;
  await db
    .insert(memberships)
    .values({ accountId, userId, role, createdAt: now, acceptedAt })
    .onConflictDoUpdate({
      target: [memberships.accountId, memberships.userId],
      set: { role, createdAt: now, acceptedAt },
      setWhere: and(isNull(memberships.acceptedAt), sql`${memberships.createdAt} <= ${now - INVITATION_VALID_MS}`),
    });
}

/**
 * Accepts the user's invitation to the account when it is pending and within its validity; true when the user is
 * then an accepted member (already was, or just accepted), false for a lapsed invitation or none.
 */
export async function acceptMembership(db: Database, accountId: string, userId: string, now: number) {
  const row = await db
    .update(memberships)
    .set({ acceptedAt: sql`coalesce(${memberships.acceptedAt}, ${now})` })
    .where(and(membership(accountId, userId), live(now)))
    .returning({ acceptedAt: memberships.acceptedAt });
  return row.length > 0;
}

/** The membership's role and where it stands, or undefined when there is none. */
export const membershipOf = (db: Database, accountId: string, userId: string) =>
  db
    .select({ role: memberships.role, createdAt: memberships.createdAt, acceptedAt: memberships.acceptedAt })
    .from(memberships)
    .where(membership(accountId, userId))
    .get();

/** The user's role in the account, or undefined when not a member. */
export async function memberRole(db: Database, accountId: string, userId: string): Promise<Role | undefined> {
  return (await db.select({ role: memberships.role }).from(memberships).where(membership(accountId, userId)).get())
    ?.role;
}

/** The account's members with their roles, oldest first, invitations (pending or lapsed) included. */
export function accountMembers(db: Database, accountId: string) {
  return db
    .select({
      userId: users.id,
      email: users.email,
      role: memberships.role,
      createdAt: memberships.createdAt,
      acceptedAt: memberships.acceptedAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.accountId, accountId))
    .orderBy(memberships.createdAt)
    .all();
}

/**
 * The accounts the user belongs to: accepted memberships first, then invitations within their validity, each oldest
 * first; lapsed invitations are none of them.
 */
export function userAccounts(db: Database, userId: string, now = Date.now()) {
  return db
    .select({ accountId: memberships.accountId, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), live(now)))
    .orderBy(sql`${memberships.acceptedAt} IS NULL`, asc(memberships.createdAt))
    .all();
}

/** Sets a member's role. */
export async function updateMemberRole(db: Database, accountId: string, userId: string, role: Role): Promise<void> {
  await db.update(memberships).set({ role }).where(membership(accountId, userId));
}
