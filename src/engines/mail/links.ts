import { and, eq, gt, isNull } from "drizzle-orm";
import { randomToken, sha256Hex } from "../../platform/tokens";
import { database } from "../../db/client";
import { mailLinks } from "../../db/schema";

/**
 * Links sent by mail. A token is a random id (22 base62 characters, about 131 bits) followed by an HMAC-SHA256 (keyed
 * with MAIL_LINK_SECRET, first 128 bits, 22 base62 characters) of the link's purpose, account, recipient, expiry and
 * id. The table keeps only the id's SHA-256 beside those fields: it never holds a usable link, and a row altered or
 * made up without the secret (another recipient, a later expiry, another purpose) no longer matches its signature.
 * The row is also the consumption record: a link works once, until it expires, for the recipient it names (a caller
 * checks that recipient is still the account's, or the signed-in user's, address).
 */
export type LinkPurpose = "confirm_email" | "sign_in";

const ID_LENGTH = 22;
const SIGNATURE_LENGTH = 22;
/** Base62 only, so a token survives every mail client and URL path unescaped. */
export const LINK_TOKEN = /^[0-9A-Za-z]{44}$/;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const encoder = new TextEncoder();

/**
 * MAIL_LINK_SECRET (at least 32 characters; `wrangler secret put`, .dev.vars locally): links are refused without it.
 */
async function signingKey(env: Env): Promise<CryptoKey> {
  const secret = env.MAIL_LINK_SECRET;
  if (!secret || secret.length < 32)
    throw new Error("MAIL_LINK_SECRET must be set (at least 32 characters) to sign mail links");
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** 16 bytes as a fixed-width base62 number (22 digits hold 2^128). */
function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < SIGNATURE_LENGTH; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

interface Signed {
  purpose: string;
  accountId: string;
  recipient: string;
  expiresAt: number;
  id: string;
}

async function signature(env: Env, s: Signed): Promise<string> {
  // Newlines cannot occur in any field (ids are base62, recipients are addresses), so the fields cannot run together.
  const data = [s.purpose, s.accountId, s.recipient, String(s.expiresAt), s.id].join("\n");
  const mac = await crypto.subtle.sign("HMAC", await signingKey(env), encoder.encode(data));
  return base62(new Uint8Array(mac).slice(0, 16));
}

/** Compares without an early exit, so timing says nothing about how much of a forged signature was right. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export async function issueLink(
  env: Env,
  link: { purpose: LinkPurpose; accountId: string; recipient: string; ttlMs: number },
  now = Date.now(),
): Promise<string> {
  const id = randomToken(ID_LENGTH);
  const recipient = link.recipient.toLowerCase();
  const expiresAt = now + link.ttlMs;
  const sig = await signature(env, { purpose: link.purpose, accountId: link.accountId, recipient, expiresAt, id });
  await database(env)
    .insert(mailLinks)
    .values({
      tokenHash: await sha256Hex(id),
      purpose: link.purpose,
      accountId: link.accountId,
      recipient,
      expiresAt,
      usedAt: null,
      createdAt: now,
    });
  return id + sig;
}

export type Consumed =
  | { ok: true; accountId: string; recipient: string }
  | { ok: false; reason: "unknown" | "expired" | "used"; accountId?: string };

/**
 * Uses the link once: the first caller within its lifetime gets it, every later one learns why not. A token whose
 * signature does not match its row (forged, or a row changed without the secret) is unknown, and is not consumed.
 */
export async function consumeLink(env: Env, purpose: LinkPurpose, token: string, now = Date.now()): Promise<Consumed> {
  if (!LINK_TOKEN.test(token)) return { ok: false, reason: "unknown" };
  const id = token.slice(0, ID_LENGTH);
  const db = database(env);
  const mine = and(eq(mailLinks.tokenHash, await sha256Hex(id)), eq(mailLinks.purpose, purpose));
  const row = await db.select().from(mailLinks).where(mine).get();
  if (!row) return { ok: false, reason: "unknown" };
  const expected = await signature(env, {
    purpose: row.purpose,
    accountId: row.accountId,
    recipient: row.recipient,
    expiresAt: row.expiresAt,
    id,
  });
  if (!sameText(expected, token.slice(ID_LENGTH))) return { ok: false, reason: "unknown" };
  if (row.usedAt !== null) return { ok: false, reason: "used", accountId: row.accountId };
  if (row.expiresAt <= now) return { ok: false, reason: "expired", accountId: row.accountId };
  // The stored consumption record: of concurrent callers, only the one whose update finds it unused gets the link.
  const [used] = await db
    .update(mailLinks)
    .set({ usedAt: now })
    .where(and(mine, isNull(mailLinks.usedAt), gt(mailLinks.expiresAt, now)))
    .returning({ accountId: mailLinks.accountId, recipient: mailLinks.recipient });
  if (used) return { ok: true, ...used };
  return { ok: false, reason: "used", accountId: row.accountId };
}
