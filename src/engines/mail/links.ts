import { and, eq, gt, isNull } from "drizzle-orm";
import { randomToken, sha256Hex } from "../../auth/keys";
import { database } from "../../db/client";
import { mailLinks } from "../../db/schema";

/**
 * Links sent by mail: a 43-character random token (about 256 bits) of which only the SHA-256 is stored, so the table
 * never holds a usable link; it expires, it works once, and it names the recipient it was sent to (a link is void
 * once its account's address is no longer that recipient).
 */
export type LinkPurpose = "confirm_email" | "sign_in";

export async function issueLink(env: Env, link: { purpose: LinkPurpose; accountId: string; recipient: string; ttlMs: number }, now = Date.now()): Promise<string> {
  const token = randomToken(43);
  await database(env).insert(mailLinks).values({
    tokenHash: await sha256Hex(token), purpose: link.purpose, accountId: link.accountId, recipient: link.recipient.toLowerCase(),
    expiresAt: now + link.ttlMs, usedAt: null, createdAt: now,
  });
  return token;
}

export type Consumed = { ok: true; accountId: string; recipient: string } | { ok: false; reason: "unknown" | "expired" | "used"; accountId?: string };

/** Uses the link once: the first caller within its lifetime gets it, every later one learns why not. */
export async function consumeLink(env: Env, purpose: LinkPurpose, token: string, now = Date.now()): Promise<Consumed> {
  const db = database(env);
  const tokenHash = await sha256Hex(token);
  const mine = and(eq(mailLinks.tokenHash, tokenHash), eq(mailLinks.purpose, purpose));
  const [used] = await db
    .update(mailLinks)
    .set({ usedAt: now })
    .where(and(mine, isNull(mailLinks.usedAt), gt(mailLinks.expiresAt, now)))
    .returning({ accountId: mailLinks.accountId, recipient: mailLinks.recipient });
  if (used) return { ok: true, ...used };
  const row = await db.select().from(mailLinks).where(mine).get();
  if (!row) return { ok: false, reason: "unknown" };
  return { ok: false, reason: row.usedAt !== null ? "used" : "expired", accountId: row.accountId };
}
