import { accountById, markEmailVerified } from "../../db/accounts";
import { database } from "../../db/client";
import { escapeHtml } from "./compose";
import { consumeLink, issueLink } from "./links";
import { queueMail } from "./outbox";

/** A confirmation link works for two days; the operator can send a new one (docs/mail.md). */
export const CONFIRMATION_TTL_MS = 48 * 3_600_000;

const linkUrl = (env: Env, token: string) => `${env.MAIL_BASE_URL.replace(/\/+$/, "")}/mail/confirm/${token}`;

/**
 * Mails the account's own address a link that confirms it. Required mail (no List-Unsubscribe, sent even to a
 * suppressed address): until it is followed, the account's keys answer 403 EMAIL_NOT_VERIFIED.
 */
export async function sendAccountConfirmation(
  env: Env,
  accountId: string,
  email: string,
  dedupeKey?: string,
): Promise<string | undefined> {
  const token = await issueLink(env, {
    purpose: "confirm_email",
    accountId,
    recipient: email,
    ttlMs: CONFIRMATION_TTL_MS,
  });
  const url = linkUrl(env, token);
  const text = [
    "Please confirm this email address for your Verification API account.",
    "",
    `Confirm: ${url}`,
    "",
    "The link works once, for 48 hours. Your API keys answer 403 EMAIL_NOT_VERIFIED until it is followed.",
    "If you did not create this account, ignore this message.",
    "",
  ].join("\n");
  const html = [
    "<p>Please confirm this email address for your Verification API account.</p>",
    `<p><a href="${escapeHtml(url)}">Confirm my email address</a></p>`,
    "<p>The link works once, for 48 hours. Your API keys answer 403 EMAIL_NOT_VERIFIED until it is followed.</p>",
    "<p>If you did not create this account, ignore this message.</p>",
  ].join("\n");
  const [id] = await queueMail(env, [
    {
      accountId,
      kind: "account_confirmation",
      to: email,
      subject: "Confirm your email address",
      text,
      html,
      optional: false,
      ...(dedupeKey ? { dedupeKey } : {}),
    },
  ]);
  return id;
}

export type Confirmation =
  | { status: "confirmed"; accountId: string; email: string }
  | { status: "already_confirmed"; accountId: string }
  | { status: "unknown" | "expired" | "used" };

/**
 * Follows a confirmation link: marks the account's email confirmed when the link is live and the account's address is
 * still the one it was sent to. A used link of an account already confirmed says so instead of failing.
 */
export async function confirmAccountEmail(env: Env, token: string, now = Date.now()): Promise<Confirmation> {
  const db = database(env);
  const consumed = await consumeLink(env, "confirm_email", token, now);
  if (!consumed.ok) {
    const account = consumed.accountId ? await accountById(db, consumed.accountId) : undefined;
    if (consumed.reason === "used" && account?.emailVerified)
      return { status: "already_confirmed", accountId: account.id };
    return { status: consumed.reason };
  }
  const account = await accountById(db, consumed.accountId);
  if (!account || account.email.toLowerCase() !== consumed.recipient) return { status: "unknown" };
  await markEmailVerified(db, account.id);
  return { status: "confirmed", accountId: account.id, email: account.email };
}
