import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken, sha256Hex } from "../../platform/tokens";
import { database } from "../../db/client";
import type { Role } from "../../db/members";
import { deleteSession, insertSession, liveSession } from "../../db/sessions";
import { SESSION_COOKIE } from "../../http/credential";

export const SESSION_TTL_MS = 14 * 24 * 3_600_000;

export interface DashboardSession {
  idHash: string;
  userId: string;
  email: string;
  accountId: string;
  role: Role;
  csrfToken: string;
}

/**
 * The cookie: HttpOnly (page scripts never read it), Secure, SameSite=Lax (sent when a person follows a link to the
 * dashboard, never with a cross-site form post or fetch).
 */
const cookieOptions = {
  httpOnly: true,
  secure: true,
  sameSite: "Lax",
  path: "/",
  maxAge: SESSION_TTL_MS / 1000,
} as const;

/** Starts a session for the user in the account and sets its cookie; only the value's hash is stored. */
export async function startSession(c: Context, userId: string, accountId: string, now = Date.now()): Promise<void> {
  const value = randomToken(43);
  await insertSession(database(c.env), {
    idHash: await sha256Hex(value),
    userId,
    accountId,
    csrfToken: randomToken(32),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  });
  setCookie(c, SESSION_COOKIE, value, cookieOptions);
}

/** The request's live session, or null (no cookie, unknown, expired, or its user left the account). */
export async function readSession(c: Context, now = Date.now()): Promise<DashboardSession | null> {
  const value = getCookie(c, SESSION_COOKIE);
  if (!value || !/^[0-9A-Za-z]{43}$/.test(value)) return null;
  const row = await liveSession(database(c.env), await sha256Hex(value), now);
  if (!row) return null;
  const { session, role, email } = row;
  return {
    idHash: session.idHash,
    userId: session.userId,
    email,
    accountId: session.accountId,
    role,
    csrfToken: session.csrfToken,
  };
}

/** Ends this browser's session and clears its cookie. */
export async function endSession(c: Context, session: DashboardSession | null): Promise<void> {
  if (session) await deleteSession(database(c.env), session.idHash);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
}
