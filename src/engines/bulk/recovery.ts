import { and, count, eq, gt, inArray, isNotNull, isNull, lt, notExists, sql } from "drizzle-orm";
import { database } from "../../db/client";
import { bulkJobs, webhookDeliveries } from "../../db/schema";
import { FINISHED } from "./jobs";
import type { RunMessage } from "./messages";
import { queueFinishedMail } from "./finished-mail";
import { queueFinishedEvent } from "./run";

const ACTIVE = ["queued", "processing"] as const;

/** Finished events are looked for this far back: a day covers any crash the sweep has not seen yet. */
const EVENT_LOOKBACK_MS = 86_400_000;

/**
 * Queues again every run untouched for `staleMs` (its consumer died, or its message was lost). Each is claimed by
 * moving its `updated_at` to now first, so overlapping sweeps send it once. Returns how many were queued.
 */
export async function requeueStalledJobs(env: Env, now: number, staleMs: number): Promise<number> {
  const stalled = await database(env)
    .update(bulkJobs)
    .set({ updatedAt: now })
    .where(and(inArray(bulkJobs.status, [...ACTIVE]), lt(bulkJobs.updatedAt, now - staleMs)))
    .returning({ id: bulkJobs.id });
  if (stalled.length)
    await env.JOBS.sendBatch(stalled.map(({ id }) => ({ body: { type: "run", jobId: id } satisfies RunMessage })));
  return stalled.length;
}

/**
 * Finished runs with a webhook URL whose event never reached the outbox (a crash right after finishing): queued now.
 */
export async function requeueUnsentEvents(env: Env, now: number, staleMs: number): Promise<number> {
  const db = database(env);
  const delivery = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.owner, "job"), eq(webhookDeliveries.ownerId, sql`CAST(${bulkJobs.id} AS TEXT)`)));
  const rows = await db
    .select()
    .from(bulkJobs)
    .where(
      and(
        inArray(bulkJobs.status, [...FINISHED]),
        isNotNull(bulkJobs.webhookUrl),
        lt(bulkJobs.finishedAt, now - staleMs),
        gt(bulkJobs.finishedAt, now - EVENT_LOOKBACK_MS),
        notExists(delivery),
      ),
    );
  for (const row of rows) await queueFinishedEvent(env, row);
  return rows.length;
}

/**
 * Finished runs whose "finished" mail step never ran to its end (a crash right after finishing, or the mail outbox
 * refused): the step is run now. Whether the account wants the mail is asked again; a message already queued for the
 * finish is not queued twice. Returns how many runs were handled.
 */
export async function requeueUnsentMail(env: Env, now: number, staleMs: number): Promise<number> {
  const rows = await database(env)
    .select()
    .from(bulkJobs)
    .where(
      and(
        inArray(bulkJobs.status, [...FINISHED]),
        isNull(bulkJobs.finishedMailAt),
        lt(bulkJobs.finishedAt, now - staleMs),
        gt(bulkJobs.finishedAt, now - EVENT_LOOKBACK_MS),
      ),
    );
  for (const row of rows) await queueFinishedMail(env, row);
  return rows.length;
}

/** Runs still queued or processing. */
export async function openRuns(env: Env): Promise<number> {
  const [row] = await database(env)
    .select({ n: count() })
    .from(bulkJobs)
    .where(inArray(bulkJobs.status, [...ACTIVE]));
  return row?.n ?? 0;
}
