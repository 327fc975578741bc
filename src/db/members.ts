import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { memberships, users } from "./schema";

const membership = (accountId: string, userId: string) =>
  and(eq(memberships.accountId, accountId), eq(memberships.userId, userId));

/** The id of the user with this (lower-cased) email, or undefined when there is none. */
export async function userIdByEmail(db: Database, email: string): Promise<string | undefined> {
  return (await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get())?.id;
}

/** Creates a user, who belongs to no account until a membership is added. */
export async function insertUser(db: Database, user: { id: string; email: string; createdAt: number }): Promise<void> {
  await db.insert(users).values(user);
}

/** Removes the user from the account; false when they were not a member. */
export async function removeMembership(db: Database, accountId: string, userId: string): Promise<boolean> {
  const removed = await db.delete(memberships).where(membership(accountId, userId)).returning();
  return removed.length > 0;
}

/** Whether the user is a member of the account. */
export async function isMember(db: Database, accountId: string, userId: string): Promise<boolean> {
  return (await db.select().from(memberships).where(membership(accountId, userId)).get()) !== undefined;
}

export type Role = "owner" | "member";

/** Makes the user a member with this role (an existing membership keeps its role). */
export async function addMemberWithRole(
  db: Database,
  member: { accountId: string; userId: string; role: Role; now: number },
): Promise<void> {
  const { accountId, userId, role, now } = member;
  await db.insert(memberships).values({ accountId, userId, role, createdAt: now }).onConflictDoNothing();
}

/** The user's role in the account, or undefined when not a member. */
export async function memberRole(db: Database, accountId: string, userId: string): Promise<Role | undefined> {
  return (await db.select({ role: memberships.role }).from(memberships).where(membership(accountId, userId)).get())
    ?.role;
}

/** The account's members with their roles, oldest first. */
export function accountMembers(db: Database, accountId: string) {
  return db
    .select({ userId: users.id, email: users.email, role: memberships.role, createdAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.accountId, accountId))
    .orderBy(memberships.createdAt)
    .all();
}

/** The accounts the user belongs to, oldest membership first. */
export function userAccounts(db: Database, userId: string) {
  return db
    .select({ accountId: memberships.accountId, role: memberships.role })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.createdAt)
    .all();
}

/** Sets a member's role. */
export async function updateMemberRole(db: Database, accountId: string, userId: string, role: Role): Promise<void> {
  await db.update(memberships).set({ role }).where(membership(accountId, userId));
}
