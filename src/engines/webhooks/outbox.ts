import { and, count, desc, eq, inArray, lt, max } from "drizzle-orm";
import { chunks } from "../../db/chunks";
import { database, type Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";
import { DEFAULT_ATTEMPTS, DELIVERY_ID_HEADER, deliveryIdOf, postOnce, retryDelayMs } from "../../platform/webhooks";
import { armRecovery } from "../recovery";
import { freezeBody, frozenBody } from "./body-store";
import { deliveryConfig } from "./config";

/**
 * The webhook outbox: every job, monitor and callback delivery is a `webhook_deliveries` record whose body is frozen
 * when it is enqueued, so a retry or a redelivery posts the same bytes. Each attempt is its own queue message: a retry
 * is a delayed message rather than a sleep inside the consumer, so a slow receiver never holds a consumer for half a
 * minute, and a crash loses at most the attempt in flight (the cron sweep queues it again).
 */

/** Who a delivery belongs to; `ownerId` is that owner's id as text (a job id, a monitor id, a request id). */
export type Owner = "job" | "monitor" | "callback";

/** An owner's `webhook_status` and `webhook_detail`, as its latest record has them. */
export interface DeliveryStatus {
  status: "pending" | "delivered" | "failed";
  detail: string | null;
  /** Where it went: an owner whose URL changed since shows no status for the old URL's deliveries. */
  url: string;
}

/**
 * The queue message of one attempt. `attempt` is the attempt it is for (1-based); a message for an attempt already
 * made is a duplicate and does nothing. Messages without it (written by hand) mean "the next attempt".
 */
export type DeliveryMessage = { type: "delivery"; deliveryId: number; attempt?: number };

const message = (deliveryId: number, attempt: number): DeliveryMessage => ({ type: "delivery", deliveryId, attempt });

/**
 * Inserts a pending delivery record (body frozen: in the row, or in R2 when large, body-store.ts) and queues its first
 * attempt. Returns the record id. Should the queue send fail after the insert, the record stays pending and the cron
 * sweep sends it later. A body over the delivery limit is recorded too: its attempt fails at once, saying why.
 */
export async function enqueueDelivery(
  env: Env,
  d: { owner: Owner; ownerId: string; event: string; url: string; secret: string; body: string },
): Promise<number> {
  const frozen = await freezeBody(env, d.body);
  const now = Date.now();
  const [row] = await database(env)
    .insert(webhookDeliveries)
    .values({ ...d, ...frozen, status: "pending", detail: null, attempts: 0, createdAt: now, updatedAt: now })
    .returning({ id: webhookDeliveries.id });
  if (!row) throw new Error("webhook delivery was not recorded");
  await Promise.all([env.JOBS.send(message(row.id, 1)), armRecovery(env, now)]);
  return row.id;
}

/**
 * Redelivery: the owner's latest record goes back to pending with the same body (attempts reset, so it gets three
 * more) and its first attempt is queued. The signature is made per attempt, so the new delivery carries a new V2
 * timestamp while the body-only legacy signature stays identical. Returns false when the owner has no record.
 */
export async function redeliverLatest(env: Env, owner: Owner, ownerId: string): Promise<boolean> {
  const db = database(env);
  const latest = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.owner, owner), eq(webhookDeliveries.ownerId, ownerId)))
    .orderBy(desc(webhookDeliveries.id))
    .limit(1)
    .get();
  if (!latest) return false;
  await db
    .update(webhookDeliveries)
    .set({ status: "pending", detail: null, attempts: 0, updatedAt: Date.now() })
    .where(eq(webhookDeliveries.id, latest.id));
  await Promise.all([env.JOBS.send(message(latest.id, 1)), armRecovery(env)]);
  return true;
}

/** The latest record's status per owner id (for job and monitor views); ids without a record are absent. */
export async function latestStatuses(
  db: Database,
  owner: Owner,
  ownerIds: string[],
): Promise<Map<string, DeliveryStatus>> {
  const statuses = new Map<string, DeliveryStatus>();
  for (const ids of chunks([...new Set(ownerIds)])) {
    // The newest record per owner id is the highest id: ids only grow.
    const newest = db
      .select({ id: max(webhookDeliveries.id) })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.owner, owner), inArray(webhookDeliveries.ownerId, ids)))
      .groupBy(webhookDeliveries.ownerId);
    const rows = await db
      .select({
        ownerId: webhookDeliveries.ownerId,
        status: webhookDeliveries.status,
        detail: webhookDeliveries.detail,
        url: webhookDeliveries.url,
      })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, newest));
    for (const row of rows) statuses.set(row.ownerId, { status: row.status, detail: row.detail, url: row.url });
  }
  return statuses;
}

/** The detail of a record whose body object is gone from R2 (deleted by hand): there is nothing to send. */
export const BODY_GONE = "Not sent: the body is no longer stored";

/**
 * Queue handler for a delivery message: ONE attempt with a fresh signature, then the outcome is recorded. A 2xx is
 * `delivered`; a 3xx, a 4xx or a refused destination is `failed` at once; a connection error, a timeout or a 5xx with
 * attempts left stays `pending` (its detail shows the last failure) and the next attempt is queued with the backoff as
 * `delaySeconds`. Idempotent: a record no longer pending, or one that already made the message's attempt, is left
 * alone, and the outcome is written only if nobody recorded this attempt first (so only one writer queues the next).
 */
export async function attemptDelivery(env: Env, deliveryId: number, attempt?: number): Promise<void> {
  const db = database(env);
  const config = deliveryConfig(env);
  const maxAttempts = config.attempts ?? DEFAULT_ATTEMPTS;
  const row = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (row?.status !== "pending") return;
  if (attempt !== undefined && row.attempts >= attempt) return;
  const isCurrent = and(
    eq(webhookDeliveries.id, deliveryId),
    eq(webhookDeliveries.status, "pending"),
    eq(webhookDeliveries.attempts, row.attempts),
  );
  if (row.attempts >= maxAttempts) {
    // Only reachable if the configured attempts shrank while a record waited: settle it rather than sweep it forever.
    await db.update(webhookDeliveries).set({ status: "failed", updatedAt: Date.now() }).where(isCurrent);
    return;
  }
  const body = await frozenBody(env, row);
  const result =
    body === null
      ? { delivered: false, retryable: false, detail: BODY_GONE }
      : await postOnce(
          { url: row.url, body, secret: row.secret, headers: { [DELIVERY_ID_HEADER]: deliveryIdOf(row.id) } },
          config,
        );
  const made = row.attempts + 1;
  const retry = result.retryable && made < maxAttempts;
  const status = result.delivered ? "delivered" : retry ? "pending" : "failed";
  const recorded = await db
    .update(webhookDeliveries)
    .set({ status, detail: result.detail, attempts: made, updatedAt: Date.now() })
    .where(isCurrent)
    .returning({ id: webhookDeliveries.id });
  if (!recorded.length || !retry) return;
  // Queues take whole seconds; rounding up never retries sooner than the backoff asks.
  const delaySeconds = Math.ceil(retryDelayMs(made + 1, config) / 1000);
  await env.JOBS.send(message(deliveryId, made + 1), { delaySeconds });
}

/**
 * Pending records untouched for this long lost their message (a crash, a failed send): a record is written after each
 * attempt, and the next one follows within the longest backoff (15 s) plus an attempt's timeout (10 s), so 45 s
 * leaves a margin for queue latency before a live delivery could be sent twice.
 */
export const STALE_DELIVERY_MS = 45_000;

/** At most this many records per sweep; a larger backlog drains over a few sweeps. */
const SWEEP_LIMIT = 900;

/** Deliveries still pending. */
export async function openDeliveries(env: Env): Promise<number> {
  const [row] = await database(env)
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  return row?.n ?? 0;
}

/**
 * Cron sweep: re-queues the next attempt of pending records untouched for `staleMs` (a delivery interrupted by a crash,
 * or whose queue send failed). Each record is claimed by moving its `updated_at` to `now` first, so overlapping sweeps
 * do not both send it and a long queue backlog gets one extra message per `staleMs`, not one per sweep. Returns how
 * many were queued.
 */
export async function requeueStalledDeliveries(
  env: Env,
  now = Date.now(),
  staleMs: number = STALE_DELIVERY_MS,
): Promise<number> {
  const db = database(env);
  const cutoff = now - staleMs;
  const isStale = and(eq(webhookDeliveries.status, "pending"), lt(webhookDeliveries.updatedAt, cutoff));
  const stale = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(isStale).limit(SWEEP_LIMIT);
  let queued = 0;
  for (const ids of chunks(stale.map((s) => s.id))) {
    const claimed = await db
      .update(webhookDeliveries)
      .set({ updatedAt: now })
      .where(and(isStale, inArray(webhookDeliveries.id, ids)))
      .returning({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts });
    if (!claimed.length) continue;
    await env.JOBS.sendBatch(claimed.map((c) => ({ body: message(c.id, c.attempts + 1) })));
    queued += claimed.length;
  }
  return queued;
}
