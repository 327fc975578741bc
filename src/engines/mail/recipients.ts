import { and, eq, gt, isNotNull, or } from "drizzle-orm";
import type { Database } from "../../db/client";
import { INVITATION_VALID_MS } from "../../db/members";
import { accounts, memberships, users } from "../../db/schema";

/** Mail an invited address may receive before it accepts: its invitation, and a sign-in link it asked for. */
export const INVITEE_KINDS: ReadonlySet<string> = new Set(["member_invite", "sign_in"]);

/**
 * Who may receive an account's mail: the account's own address and the addresses of members who accepted (signed in
 * to the account), and nobody else; with `invited`, also addresses whose invitation is pending and within its
 * validity (for INVITEE_KINDS only). The outbox refuses any other recipient, so no field of any request can turn the
 * service into a relay, and an invitation alone does not put a stranger on the account's alerts.
 */
export async function accountRecipients(
  db: Database,
  accountId: string,
  { invited = false, now = Date.now() } = {},
): Promise<string[]> {
  const standing = invited
    ? or(isNotNull(memberships.acceptedAt), gt(memberships.createdAt, now - INVITATION_VALID_MS))
    : isNotNull(memberships.acceptedAt);
  const [owner, members] = await Promise.all([
    db.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId)).get(),
    db
      .select({ email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.accountId, accountId), standing)),
  ]);
  const all = [...(owner ? [owner.email] : []), ...members.map((m) => m.email)];
  return [...new Set(all.map((e) => e.toLowerCase()))];
}
