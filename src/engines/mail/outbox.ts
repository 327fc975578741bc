import { and, count, eq, gte, inArray, lt } from "drizzle-orm";
import { newId } from "../../platform/tokens";
import { chunks } from "../../db/chunks";
import { database } from "../../db/client";
import { mailMessages, mailSuppressions } from "../../db/schema";
import { mailTransport, type MailTransport } from "../../platform/mail-transport";
import { armRecovery } from "../recovery";
import { addressOf, mimeComposer } from "./compose";
import { optionalMailBlocked } from "./preferences";
import { accountRecipients, INVITEE_KINDS } from "./recipients";

/**
 * The mail outbox, built like the webhook outbox (src/engines/webhooks/outbox.ts): a row per message with the whole
 * MIME text frozen when it is queued, one queue message per attempt (a retry is a delayed message), the attempt number
 * in the message so a duplicate does nothing, and the recovery alarm re-queueing a row whose message was lost.
 */
export type MailQueueMessage = { type: "mail"; messageId: string; attempt?: number };

const message = (messageId: string, attempt: number): MailQueueMessage => ({ type: "mail", messageId, attempt });

export const MAIL_ATTEMPTS = 5;
const DEFAULT_RETRY_BASE_MS = 60_000;
/**
 * A pending row this long past its due time lost its queue message: the longest submission (22 s) plus queue latency.
 */
export const STALE_MAIL_MS = 45_000;
const SWEEP_LIMIT = 500;
const QUEUE_BATCH = 100;

/**
 * At most this many messages of one kind to one recipient of one account per hour; beyond it a message is recorded as
 * `suppressed` ("hourly limit") and not sent, so no loop, retry storm or abuse of a route floods a mailbox.
 */
export const HOURLY_LIMITS: Record<string, number> = {
  account_confirmation: 5,
  monitor_alert: 30,
  low_balance: 2,
  key_spend_cap: 10,
  bulk_finished: 30,
};
export const DEFAULT_HOURLY_LIMIT = 20;
const HOUR_MS = 3_600_000;

export interface OutgoingMail {
  accountId: string;
  /** What the message is (`account_confirmation`, `monitor_alert`, ...), listed to the operator. */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Optional mail (alerts, warnings) carries List-Unsubscribe and stops for a suppressed recipient. */
  optional: boolean;
  /** One message per event and recipient: queueing the same key again does nothing. */
  dedupeKey?: string;
}

/**
 * The one-click unsubscribe link of an optional message: its own id (random, unguessable) names the recipient, so the
 * link works for that recipient only and carries no secret (src/surfaces/api/mail-unsubscribe.ts).
 */
export const unsubscribeUrl = (env: Env, messageId: string) =>
  `${env.MAIL_BASE_URL.replace(/\/+$/, "")}/mail/unsubscribe/${messageId}`;

const retryBaseMs = (env: Env) => {
  const value = Number(env.MAIL_RETRY_BASE_MS);
  return Number.isFinite(value) && value >= 0 && env.MAIL_RETRY_BASE_MS !== "" ? value : DEFAULT_RETRY_BASE_MS;
};
/** The wait before attempt `attempt` (2 or later): base, 3x, 9x, 27x. */
const retryDelayMs = (env: Env, attempt: number) => retryBaseMs(env) * 3 ** (attempt - 2);

/**
 * Records and queues messages; returns the ids of those queued (a repeated dedupe key records nothing, a message over
 * the hourly limit is recorded as suppressed). Throws when
 * a recipient is not the account's own address or a member's: callers name recipients, the outbox checks them.
 */
export async function queueMail(env: Env, mails: OutgoingMail[]): Promise<string[]> {
  if (!mails.length) return [];
  const db = database(env);
  // Per account, who may receive it: members who accepted, and for an invitation or sign-in link invitees too.
  const allowed = new Map<string, Set<string>>();
  const audience = (m: OutgoingMail) => `${INVITEE_KINDS.has(m.kind) ? "invited" : "members"}:${m.accountId}`;
  for (const m of mails) {
    const key = audience(m);
    if (!allowed.has(key))
      allowed.set(key, new Set(await accountRecipients(db, m.accountId, { invited: INVITEE_KINDS.has(m.kind) })));
  }
  const now = Date.now();
  const composeMime = await mimeComposer();
  const rows = mails.map((m) => {
    const to = m.to.toLowerCase();
    if (!allowed.get(audience(m))?.has(to))
      throw new Error(`mail to ${to} refused: not a member of account ${m.accountId}`);
    const id = newId("msg");
    const raw = composeMime({
      messageId: id,
      from: env.MAIL_FROM,
      to,
      subject: m.subject,
      text: m.text,
      html: m.html,
      unsubscribeUrl: m.optional ? unsubscribeUrl(env, id) : undefined,
    });
    return {
      id,
      accountId: m.accountId,
      kind: m.kind,
      recipient: to,
      subject: m.subject,
      textBody: m.text,
      raw,
      optional: m.optional,
      dedupeKey: m.dedupeKey ?? null,
      status: "pending" as const,
      attempts: 0,
      dueAt: now,
      createdAt: now,
      updatedAt: now,
    };
  });
  const ids: string[] = [];
  for (const row of rows) {
    const [sentThisHour] = await db
      .select({ n: count() })
      .from(mailMessages)
      .where(
        and(
          eq(mailMessages.accountId, row.accountId),
          eq(mailMessages.kind, row.kind),
          eq(mailMessages.recipient, row.recipient),
          gte(mailMessages.createdAt, now - HOUR_MS),
        ),
      );
    const limited = (sentThisHour?.n ?? 0) >= (HOURLY_LIMITS[row.kind] ?? DEFAULT_HOURLY_LIMIT);
    const values = limited
      ? { ...row, status: "suppressed" as const, detail: "hourly limit for this kind of message reached" }
      : row;
    const inserted = await db
      .insert(mailMessages)
      .values(values)
      .onConflictDoNothing({ target: mailMessages.dedupeKey })
      .returning({ id: mailMessages.id });
    if (inserted.length && !limited) ids.push(row.id);
  }
  // A queue batch takes at most 100 messages (an alert to a large account has more recipients).
  const batches = [];
  for (let i = 0; i < ids.length; i += QUEUE_BATCH)
    batches.push(env.JOBS.sendBatch(ids.slice(i, i + QUEUE_BATCH).map((id) => ({ body: message(id, 1) }))));
  if (ids.length) await Promise.all([...batches, armRecovery(env, now)]);
  return ids;
}

/**
 * Queue handler: ONE attempt, then the outcome is recorded. Sent is `sent`; a permanent refusal is `failed` and
 * suppresses the recipient (optional mail to it stops); a temporary failure with attempts left stays `pending` and the
 * next attempt is queued after the backoff. Idempotent like the webhook outbox: a settled row or an attempt already
 * made is left alone, and the outcome is written only if nobody recorded this attempt first.
 */
export async function attemptMail(
  env: Env,
  messageId: string,
  attempt?: number,
  transport: MailTransport | null = mailTransport(env),
): Promise<void> {
  const db = database(env);
  const row = await db.select().from(mailMessages).where(eq(mailMessages.id, messageId)).get();
  if (row?.status !== "pending") return;
  if (attempt !== undefined && row.attempts >= attempt) return;
  const isCurrent = and(
    eq(mailMessages.id, messageId),
    eq(mailMessages.status, "pending"),
    eq(mailMessages.attempts, row.attempts),
  );
  const now = Date.now();
  const blocked = row.optional ? await optionalMailBlocked(db, row.recipient, row.kind) : null;
  if (blocked) {
    await db.update(mailMessages).set({ status: "suppressed", detail: blocked, updatedAt: now }).where(isCurrent);
    return;
  }
  if (!transport) {
    await db
      .update(mailMessages)
      .set({
        status: "failed",
        detail: "no mail transport configured (MAIL_TRANSPORT)",
        attempts: row.attempts + 1,
        updatedAt: now,
      })
      .where(isCurrent);
    return;
  }
  const outcome = await transport.send({ from: addressOf(env.MAIL_FROM), to: row.recipient, raw: row.raw });
  const made = row.attempts + 1;
  const retry = !outcome.sent && !outcome.permanent && made < MAIL_ATTEMPTS;
  const status = outcome.sent ? "sent" : retry ? "pending" : "failed";
  const delay = retry ? retryDelayMs(env, made + 1) : 0;
  const recorded = await db
    .update(mailMessages)
    .set({
      status,
      detail: outcome.detail.slice(0, 500),
      attempts: made,
      dueAt: Date.now() + delay,
      updatedAt: Date.now(),
    })
    .where(isCurrent)
    .returning({ id: mailMessages.id });
  if (!recorded.length) return;
  // A message refused for itself (too large) is no reason to stop mailing the recipient.
  if (!outcome.sent && outcome.permanent && !outcome.messageRefused) {
    await db
      .insert(mailSuppressions)
      .values({ recipient: row.recipient, reason: outcome.detail.slice(0, 500), createdAt: Date.now() })
      .onConflictDoNothing();
  }
  // Queues take whole seconds; rounding up never retries sooner than the backoff asks.
  if (retry) await env.JOBS.send(message(messageId, made + 1), { delaySeconds: Math.ceil(delay / 1000) });
}

/** Messages still pending. */
export async function openMail(env: Env): Promise<number> {
  const [row] = await database(env).select({ n: count() }).from(mailMessages).where(eq(mailMessages.status, "pending"));
  return row?.n ?? 0;
}

/**
 * Recovery: re-queues the next attempt of pending rows `staleMs` past their due time (a crash between recording and
 * queueing, a failed queue send). Each row is claimed by moving its due time to `now` first, so overlapping sweeps
 * queue it once; a duplicate attempt message would do nothing anyway.
 */
export async function requeueStalledMail(env: Env, now = Date.now(), staleMs = STALE_MAIL_MS): Promise<number> {
  const db = database(env);
  const isStale = and(eq(mailMessages.status, "pending"), lt(mailMessages.dueAt, now - staleMs));
  const stale = await db.select({ id: mailMessages.id }).from(mailMessages).where(isStale).limit(SWEEP_LIMIT);
  let queued = 0;
  for (const ids of chunks(stale.map((s) => s.id))) {
    const claimed = await db
      .update(mailMessages)
      .set({ dueAt: now })
      .where(and(isStale, inArray(mailMessages.id, ids)))
      .returning({ id: mailMessages.id, attempts: mailMessages.attempts });
    if (!claimed.length) continue;
    await env.JOBS.sendBatch(claimed.map((c) => ({ body: message(c.id, c.attempts + 1) })));
    queued += claimed.length;
  }
  return queued;
}
