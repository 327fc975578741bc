import { eq } from "drizzle-orm";
import type { Database } from "./client";
import { accounts } from "./schema";

export type Account = typeof accounts.$inferSelect;

/** The account with this id, or undefined when there is none. */
export function accountById(db: Database, accountId: string): Promise<Account | undefined> {
  return db.select().from(accounts).where(eq(accounts.id, accountId)).get();
}

/** Whether an account already uses this (lower-cased) email: emails are unique across accounts. */
export async function accountEmailTaken(db: Database, email: string): Promise<boolean> {
  return (await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email)).get()) !== undefined;
}

/** Creates an account row; its plan and credits live in the AccountObject Durable Object, not here. */
export async function insertAccount(
  db: Database,
  account: { id: string; email: string; emailVerified: boolean; createdAt: number },
): Promise<void> {
  await db.insert(accounts).values(account);
}

/** Records that the account's email was confirmed, which unlocks its keys. */
export async function markEmailVerified(db: Database, accountId: string): Promise<void> {
  await db.update(accounts).set({ emailVerified: true }).where(eq(accounts.id, accountId));
}

/** Replaces the account's feedback key hash, so the previous `fb_` key stops working at once. */
export async function setFeedbackKeyHash(db: Database, accountId: string, keyHash: string): Promise<void> {
  await db.update(accounts).set({ feedbackKeyHash: keyHash }).where(eq(accounts.id, accountId));
}

/** The account whose current feedback key has this hash, or null. */
export async function accountIdByFeedbackKeyHash(db: Database, keyHash: string): Promise<string | null> {
  return (
    (await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.feedbackKeyHash, keyHash)).get())?.id ?? null
  );
}

/** The account whose own address is this (lower-cased) email. */
export function accountByEmail(db: Database, email: string): Promise<Account | undefined> {
  return db.select().from(accounts).where(eq(accounts.email, email)).get();
}
