import { forgetMemberKeys } from "../../auth/key-lookup";
import { newId } from "../../platform/tokens";
import { accountById } from "../../db/accounts";
import { markHolderLeft } from "../../db/api-keys";
import { type Database, database } from "../../db/client";
import {
  acceptMembership,
  accountMembers,
  addMemberWithRole,
  insertUser,
  memberStatus,
  membershipOf,
  removeMemberWithKeys,
  type Role,
  updateMemberRole,
  userIdByEmail,
} from "../../db/members";
import { deleteUserSessions } from "../../db/sessions";
import { consumeLink } from "../../engines/mail/links";
import { homeAccount } from "../../engines/mail/self-service";
import { sendInvitation } from "../../engines/mail/sign-in";
import { hitLimit, LIMITS, type LimitName } from "../../limits/limiter";

/**
 * What the dashboard does to accounts and members. Every answer a signed-out person sees is the same whether or not
 * their address is known: these functions return nothing that tells them apart.
 */

/** Follows a sign-in link once: the user and the account to open, or null when the link is no good. */
export async function signInWithLink(
  env: Env,
  token: string,
  now = Date.now(),
): Promise<{ userId: string; accountId: string } | null> {
  const consumed = await consumeLink(env, "sign_in", token, now);
  if (!consumed.ok) return null;
  const db = database(env);
  const userId = await userIdByEmail(db, consumed.recipient);
  if (!userId) return null;
  // Following a link into an account accepts its invitation; a lapsed one is no membership (the link then opens the
  // user's home account, if any).
  if (await acceptMembership(db, consumed.accountId, userId, now)) return { userId, accountId: consumed.accountId };
  const accountId = await homeAccount(env, userId);
  return accountId && (await acceptMembership(db, accountId, userId, now)) ? { userId, accountId } : null;
}

export interface Invitation {
  accountId: string;
  /** The invited address, lower-cased. */
  email: string;
  role: Role;
  /** The inviting member's address, named in the mail. */
  invitedBy: string;
}

export type InviteOutcome =
  | { outcome: "invited" | "already_member" | "unconfirmed" }
  | { outcome: "limited"; retryAfterSeconds: number; message: string };

/** Counts one invitation against a limit; the refusal as a value, or null within it. */
async function overLimit(env: Env, name: LimitName, subject: string): Promise<InviteOutcome | null> {
  const hit = await hitLimit(env, name, subject);
  return hit.allowed
    ? null
    : { outcome: "limited", retryAfterSeconds: hit.retryAfterSeconds, message: LIMITS[name].message };
}

/**
 * Invites a member (creating their user) and mails their invitation; an existing member or a pending invitation
 * changes nothing, a lapsed invitation is sent anew. The invited address receives no account mail but the
 * invitation until it accepts (signs in within INVITATION_VALID_MS). Invitations
 * mail people who never asked for anything, so only a confirmed account invites, and each invitation counts against
 * the account's daily limit and then the recipient's (across accounts): over either, nothing is added or mailed.
 */
export async function inviteMember(env: Env, invitation: Invitation, now = Date.now()): Promise<InviteOutcome> {
  const { accountId, email, role, invitedBy } = invitation;
  const db = database(env);
  if (!(await accountById(db, accountId))?.emailVerified) return { outcome: "unconfirmed" };
  const existing = await userIdByEmail(db, email);
  const membership = existing ? await membershipOf(db, accountId, existing) : undefined;
  if (membership && memberStatus(membership, now) !== "lapsed") return { outcome: "already_member" };
  const limited =
    (await overLimit(env, "invitationsAccount", accountId)) ?? (await overLimit(env, "invitationsRecipient", email));
  if (limited) return limited;
  const userId = existing ?? newId("usr");
  if (!existing) await insertUser(db, { id: userId, email, createdAt: now });
  // Invited, not yet a member who receives mail: that waits until they accept (follow the link, sign in).
  await addMemberWithRole(db, { accountId, userId, role, now, acceptedAt: null });
  // A returning member's old keys were marked at a removal here (removeMemberWithKeys), not at the operator's; the
  // invitation marks any still unmarked, so it revives none of them, neither pending nor once accepted.
  if (existing && !membership) {
    await markHolderLeft(db, { accountId, userId, now });
    forgetMemberKeys(accountId, userId);
  }
  await sendInvitation(env, accountId, email, invitedBy);
  return { outcome: "invited" };
}

export type RemoveOutcome = "removed" | "not_member" | "last_owner";

/** Whether this membership is the account's last accepted owner (a pending invitation as owner manages nothing). */
async function lastOwner(db: Database, accountId: string, membership: { role: Role; acceptedAt: number | null }) {
  if (membership.role !== "owner" || membership.acceptedAt === null) return false;
  const owners = (await accountMembers(db, accountId)).filter((m) => m.role === "owner" && m.acceptedAt !== null);
  return owners.length < 2;
}

/**
 * Removes a member: the keys they hold on the account answer 403 KEY_ACCOUNT_MISMATCH for good (at once here, in
 * other isolates within the key cache's 10 s; a later invitation revives none of them; keys a person revoked stay
 * 401) and their sessions in this account end. The last owner cannot be removed, so an account always has someone
 * to manage it.
 */
export async function removeMember(env: Env, accountId: string, userId: string): Promise<RemoveOutcome> {
  const db = database(env);
  const membership = await membershipOf(db, accountId, userId);
  if (!membership) return "not_member";
  if (await lastOwner(db, accountId, membership)) return "last_owner";
  await removeMemberWithKeys(db, { accountId, userId, now: Date.now() });
  forgetMemberKeys(accountId, userId);
  await deleteUserSessions(db, userId, accountId);
  return "removed";
}

/** Changes a member's role; the last owner stays owner. */
export async function setMemberRole(
  env: Env,
  accountId: string,
  userId: string,
  role: Role,
): Promise<RemoveOutcome | "changed"> {
  const db = database(env);
  const current = await membershipOf(db, accountId, userId);
  if (!current) return "not_member";
  if (role === "member" && (await lastOwner(db, accountId, current))) return "last_owner";
  await updateMemberRole(db, accountId, userId, role);
  return "changed";
}

/** Ends every session of the user, in every browser. */
export const signOutEverywhere = (env: Env, userId: string) => deleteUserSessions(database(env), userId);
