import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accounts, memberships, users } from "../../db/schema";

/**
 * Who may receive an account's mail: the account's own address and its members' addresses, and nobody else. The
 * outbox refuses any other recipient, so no field of any request can turn the service into a relay.
 */
export async function accountRecipients(db: Database, accountId: string): Promise<string[]> {
  const [owner, members] = await Promise.all([
    db.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId)).get(),
    db
      .select({ email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.accountId, accountId)),
  ]);
  const all = [...(owner ? [owner.email] : []), ...members.map((m) => m.email)];
  return [...new Set(all.map((e) => e.toLowerCase()))];
}
