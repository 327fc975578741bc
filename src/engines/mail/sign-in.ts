import { INVITATION_VALID_MS } from "../../db/members";
import { escapeHtml } from "./compose";
import { issueLink } from "./links";
import { queueMail } from "./outbox";
import { nextQuery } from "./return-path";

/** A sign-in link works for 15 minutes; one in an invitation as long as the invitation (7 days, docs/dashboard.md). */
export const SIGN_IN_TTL_MS = 15 * 60_000;
export const INVITE_TTL_MS = INVITATION_VALID_MS;

/** The link's page; `next` (a dashboard path, src/engines/mail/return-path.ts) is where it lands once signed in. */
const linkUrl = (env: Env, token: string, next?: string | null) =>
  `${env.MAIL_BASE_URL.replace(/\/+$/, "")}/dashboard/sign-in/link/${token}${nextQuery(next)}`;

interface SignInMail {
  accountId: string;
  to: string;
  kind: "sign_in" | "member_invite";
  subject: string;
  lead: string;
  ttlMs: number;
  validity: string;
  /** The outbox's dedupe key: a second mail with it is not sent. */
  dedupeKey?: string;
  /** The dashboard path the person asked for before signing in; the link lands there. */
  next?: string | null;
}

async function sendLinkMail(env: Env, mail: SignInMail): Promise<string | undefined> {
  const token = await issueLink(env, {
    purpose: "sign_in",
    accountId: mail.accountId,
    recipient: mail.to,
    ttlMs: mail.ttlMs,
  });
  const url = linkUrl(env, token, mail.next);
  const text = [
    mail.lead,
    "",
    `Sign in: ${url}`,
    "",
    `The link works once, for ${mail.validity}.`,
    "If you did not ask for it, ignore this message.",
    "",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(mail.lead)}</p>`,
    `<p><a href="${escapeHtml(url)}">Sign in to the dashboard</a></p>`,
    `<p>The link works once, for ${escapeHtml(mail.validity)}. If you did not ask for it, ignore this message.</p>`,
  ].join("\n");
  const [id] = await queueMail(env, [
    {
      accountId: mail.accountId,
      kind: mail.kind,
      to: mail.to,
      subject: mail.subject,
      text,
      html,
      optional: false,
      ...(mail.dedupeKey ? { dedupeKey: mail.dedupeKey } : {}),
    },
  ]);
  return id;
}

/**
 * A sign-in link handed to the operator instead of mailed (`npm run dev` prints one for the demo account); it works
 * like a mailed one: once, for 15 minutes.
 */
export async function issueSignInUrl(env: Env, accountId: string, to: string): Promise<string> {
  return linkUrl(env, await issueSignInToken(env, accountId, to));
}

/** A sign-in token (once, 15 minutes): the confirmation page's button signs its browser in with one. */
export const issueSignInToken = (env: Env, accountId: string, to: string) =>
  issueLink(env, { purpose: "sign_in", accountId, recipient: to, ttlMs: SIGN_IN_TTL_MS });

/** What a sign-in mail is for: the member, and optionally its dedupe key and the path to land on. */
export interface SignInRequest {
  accountId: string;
  to: string;
  dedupeKey?: string;
  next?: string | null;
}

/** Mails a member a single-use link that signs them in to the dashboard of this account (and lands on `next`). */
export const sendSignInLink = (env: Env, { accountId, to, dedupeKey, next }: SignInRequest) =>
  sendLinkMail(env, {
    accountId,
    to,
    next: next ?? null,
    ...(dedupeKey ? { dedupeKey } : {}),
    kind: "sign_in",
    subject: "Your sign-in link",
    ttlMs: SIGN_IN_TTL_MS,
    validity: "15 minutes",
    lead: "Here is the link to sign in to your Verification API dashboard.",
  });

/** What an invitation carries of the inviter's own choosing: their address, cut to this many characters. */
export const INVITATION_LIMITS = { inviterChars: 80 } as const;

const bounded = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/**
 * Mails a new member their invitation: a sign-in link that works for a week. The inviter's address is the only text
 * an account chooses in it, and it goes to someone who asked for nothing, so it is cut to `inviterChars`.
 */
export const sendInvitation = (env: Env, accountId: string, to: string, invitedBy: string) =>
  sendLinkMail(env, {
    accountId,
    to,
    kind: "member_invite",
    subject: "You were invited to a Verification API account",
    ttlMs: INVITE_TTL_MS,
    validity: "7 days",
    lead: `${bounded(invitedBy, INVITATION_LIMITS.inviterChars)} invited you to their Verification API account.`,
  });
