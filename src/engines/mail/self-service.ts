import { accountByEmail, insertAccount } from "../../db/accounts";
import { database } from "../../db/client";
import { addMemberWithRole, insertUser, userAccounts, userIdByEmail } from "../../db/members";
import { newId } from "../../platform/tokens";
import { accountObject } from "../credits/credits";
import { sendAccountConfirmation } from "./account-confirmation";
import { returnPath } from "./return-path";
import { sendSignInLink } from "./sign-in";

/**
 * What a signed-out person asked for on the sign-in or sign-up form, done on the queue: the request that asked only
 * sends this message, the same one whatever the address, so neither its answer nor its time says whether the address
 * is known (docs/dashboard.md, "Signing in").
 */
export interface SelfServiceMessage {
  type: "self_service_mail";
  form: "sign_in" | "sign_up";
  email: string;
  /** The asking request's id: a redelivered message mails nothing twice (the outbox's dedupe key). */
  requestId: string;
  /** The dashboard path the person was sent to sign in from; the mailed link lands there (checked again on use). */
  next?: string | null;
}

/** Hands the form's work to the queue; the one call the asking request makes for it. */
export async function queueSelfServiceMail(env: Env, message: Omit<SelfServiceMessage, "type">): Promise<void> {
  await env.JOBS.send({ type: "self_service_mail", ...message } satisfies SelfServiceMessage);
}

/** The user's first account, where a sign-in lands. */
export async function homeAccount(env: Env, userId: string): Promise<string | undefined> {
  return (await userAccounts(database(env), userId))[0]?.accountId;
}

/** Mails a sign-in link to a member; an unknown address (or one in no account) gets nothing. */
export async function requestSignIn(
  env: Env,
  email: string,
  { dedupeKey, next }: { dedupeKey?: string; next?: string | null } = {},
): Promise<void> {
  const userId = await userIdByEmail(database(env), email);
  const accountId = userId && (await homeAccount(env, userId));
  if (accountId) await sendSignInLink(env, { accountId, to: email, next: returnPath(next), dedupeKey });
}

/**
 * Signs up a new address: an account (free plan, unconfirmed), its first user as owner, and the confirmation mail.
 * An address already in use gets a sign-in link instead, so the page said the same either way.
 */
export async function signUp(env: Env, email: string, dedupeKey?: string, now = Date.now()): Promise<void> {
  const db = database(env);
  const existingUser = await userIdByEmail(db, email);
  if (existingUser || (await accountByEmail(db, email))) {
    if (existingUser) await requestSignIn(env, email, { dedupeKey });
    return;
  }
  const accountId = newId("acc");
  const userId = newId("usr");
  await insertAccount(db, { id: accountId, email, emailVerified: false, createdAt: now });
  await insertUser(db, { id: userId, email, createdAt: now });
  await addMemberWithRole(db, { accountId, userId, role: "owner", now, acceptedAt: now });
  await accountObject(env, accountId).setPlan("free");
  await sendAccountConfirmation(env, accountId, email, dedupeKey);
}

/**
 * The queue's side of the forms. One dedupe key per asking request covers every mail it may lead to, so a message
 * redelivered after a crash part way sends nothing a second time.
 */
export async function runSelfServiceMail(env: Env, message: SelfServiceMessage): Promise<void> {
  const dedupeKey = `self_service:${message.requestId}`;
  if (message.form === "sign_in") await requestSignIn(env, message.email, { dedupeKey, next: message.next });
  else await signUp(env, message.email, dedupeKey);
}
