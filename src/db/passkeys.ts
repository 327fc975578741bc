import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { passkeys } from "./schema";

export type Passkey = typeof passkeys.$inferSelect;

export const userPasskeys = (db: Database, userId: string) =>
  db.select().from(passkeys).where(eq(passkeys.userId, userId)).all();
export const passkeyById = (db: Database, id: string) => db.select().from(passkeys).where(eq(passkeys.id, id)).get();

export async function insertPasskey(db: Database, row: Passkey): Promise<void> {
  await db.insert(passkeys).values(row);
}

/** Records a use: the authenticator's new signature counter (a counter going backwards means a cloned key). */
export async function touchPasskey(
  db: Database,
  passkey: { id: string; userId: string },
  counter: number,
  now: number,
): Promise<void> {
  const { id, userId } = passkey;
  await db
    .update(passkeys)
    .set({ counter, lastUsedAt: now })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)));
}
