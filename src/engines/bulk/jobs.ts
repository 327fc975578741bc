import { and, count, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { sha256Hex } from "../../platform/tokens";
import type { Database } from "../../db/client";
import { iso, PER_PAGE } from "../../db/listing";
import { bulkJobs } from "../../db/schema";
import type { BulkProduct } from "../product";
import { latestStatuses, type DeliveryStatus } from "../webhooks/outbox";

/** Bulk runs of every product: state and counters in D1 (`bulk_jobs`), inputs and results in R2, work on the queue. */
export const CHUNK_ENTRIES = 200;
export const RETENTION_DAYS = 30;
export const INPUT_RETENTION_DAYS = 7;
export const STATUSES = ["queued", "processing", "completed", "failed", "cancelled"] as const;
export const FINISHED = ["completed", "failed", "cancelled"] as const;

export type JobRow = typeof bulkJobs.$inferSelect;
export type JobStatus = (typeof STATUSES)[number];

export const inputKey = (jobId: number) => `bulk/${jobId}/input.jsonl`;
export const resultsPrefix = (jobId: number) => `bulk/${jobId}/results/`;

/** Same inputs (in order) and same webhook URL: what decides whether an Idempotency-Key is reused. */
export const requestHash = (inputs: unknown[], webhookUrl: string | null) =>
  sha256Hex(JSON.stringify([inputs, webhookUrl]));

/**
 * The job object (spec, "Bulk job object"), the same for every product but for its counters and the run options its
 * product shows (`jobFields`); the webhook secret is never part of it.
 */
export function jobView(row: JobRow, delivery: DeliveryStatus | null = null, jobFields: readonly string[] = []) {
  return {
    id: row.id,
    status: row.status,
    total: row.total,
    duplicate_count: row.duplicateCount,
    processed: row.processed,
    ...row.counts,
    credits_used: row.creditsUsed,
    stopped_reason: row.stoppedReason,
    cancel_requested: row.cancelRequested,
    webhook_status: row.webhookUrl ? (delivery?.status ?? null) : null,
    webhook_detail: row.webhookUrl ? (delivery?.detail ?? null) : null,
    ...Object.fromEntries(jobFields.map((name) => [name, row.options[name] ?? null])),
    created_at: iso(row.createdAt),
    finished_at: iso(row.finishedAt),
  };
}

export type JobView = ReturnType<typeof jobView>;

/** Job objects with their webhook status, in one more query for the whole list. */
export async function jobViews(db: Database, rows: JobRow[], product?: BulkProduct): Promise<JobView[]> {
  const withHook = rows.filter((r) => r.webhookUrl).map((r) => String(r.id));
  const statuses = withHook.length ? await latestStatuses(db, "job", withHook) : new Map<string, DeliveryStatus>();
  return rows.map((row) => jobView(row, statuses.get(String(row.id)) ?? null, product?.bulk?.jobFields));
}

export const jobViewOf = async (db: Database, row: JobRow, product?: BulkProduct) =>
  (await jobViews(db, [row], product))[0]!;

export async function findJob(
  db: Database,
  product: BulkProduct,
  accountId: string,
  jobId: number,
): Promise<JobRow | undefined> {
  return db
    .select()
    .from(bulkJobs)
    .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.accountId, accountId), eq(bulkJobs.product, product.name)))
    .get();
}

export const jobById = (db: Database, jobId: number) => db.select().from(bulkJobs).where(eq(bulkJobs.id, jobId)).get();

export async function findByIdempotencyKey(db: Database, product: BulkProduct, accountId: string, key: string) {
  return db
    .select()
    .from(bulkJobs)
    .where(and(eq(bulkJobs.accountId, accountId), eq(bulkJobs.product, product.name), eq(bulkJobs.idempotencyKey, key)))
    .get();
}

export interface JobFilter {
  status?: JobStatus;
  since?: number;
  until?: number;
  page: number;
}

export async function listJobs(db: Database, product: BulkProduct, accountId: string, q: JobFilter) {
  const filters: (SQL | undefined)[] = [
    eq(bulkJobs.accountId, accountId),
    eq(bulkJobs.product, product.name),
    q.status ? eq(bulkJobs.status, q.status) : undefined,
    q.since !== undefined ? gte(bulkJobs.createdAt, q.since) : undefined,
    q.until !== undefined ? lt(bulkJobs.createdAt, q.until) : undefined,
  ];
  const { rows, total } = await pageOf(db, and(...filters), q.page);
  return { jobs: await jobViews(db, rows, product), total };
}

/** One page of runs, newest first, 100 a page, and how many match. */
async function pageOf(db: Database, where: SQL | undefined, page: number) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(bulkJobs)
      .where(where)
      .orderBy(desc(bulkJobs.id))
      .limit(PER_PAGE)
      .offset((page - 1) * PER_PAGE),
    db.select({ n: count() }).from(bulkJobs).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function requestCancel(db: Database, jobId: number) {
  await db.update(bulkJobs).set({ cancelRequested: true, updatedAt: Date.now() }).where(eq(bulkJobs.id, jobId));
}

export const saveCreateResponse = (db: Database, jobId: number, response: unknown) =>
  db
    .update(bulkJobs)
    .set({ createResponse: JSON.stringify(response) })
    .where(eq(bulkJobs.id, jobId));

/** A settled run that stopped for credits goes back to processing, once: null when someone else resumed it first. */
export async function markResumed(db: Database, jobId: number): Promise<JobRow | null> {
  const [resumed] = await db
    .update(bulkJobs)
    .set({ status: "processing", stoppedReason: null, finishedAt: null, updatedAt: Date.now() })
    .where(
      and(
        eq(bulkJobs.id, jobId),
        eq(bulkJobs.status, "completed"),
        inArray(bulkJobs.stoppedReason, ["insufficient_credits", "key_spend_cap"]),
      ),
    )
    .returning();
  return resumed ?? null;
}

/** One chunk's share of a run: entries answered from `fromEntry`, CSV rows written, credits and counters added. */
export interface ChunkProgress {
  fromEntry: number;
  entriesDone: number;
  rows: number;
  credits: number;
  counts: Record<string, number>;
  /** Values the chunk put on the account's suppression list. */
  suppressed: number;
}

/** Adds one chunk's rows to the counters, only if nobody recorded them first (a redelivered message). */
export async function recordProgress(db: Database, job: JobRow, progress: ChunkProgress) {
  const { fromEntry, entriesDone, rows, credits, counts, suppressed } = progress;
  let countsSql = sql`${bulkJobs.counts}`;
  for (const [key, n] of Object.entries(counts)) {
    const path = `$.${key}`;
    countsSql = sql`json_set(${countsSql}, ${path}, coalesce(json_extract(${bulkJobs.counts}, ${path}), 0) + ${n})`;
  }
  const updated = await db
    .update(bulkJobs)
    .set({
      nextEntry: fromEntry + entriesDone,
      processed: sql`${bulkJobs.processed} + ${rows}`,
      creditsUsed: sql`${bulkJobs.creditsUsed} + ${credits}`,
      suppressedAdded: sql`${bulkJobs.suppressedAdded} + ${suppressed}`,
      counts: countsSql,
      updatedAt: Date.now(),
    })
    .where(and(eq(bulkJobs.id, job.id), eq(bulkJobs.nextEntry, fromEntry)))
    .returning({ id: bulkJobs.id });
  return updated.length > 0;
}

/** An account's run of any product (the dashboard's run page), or undefined: another account's run is not found. */
export const findAccountJob = (db: Database, accountId: string, jobId: number) =>
  db
    .select()
    .from(bulkJobs)
    .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.accountId, accountId)))
    .get();

/** The account's settled runs that stopped because the account ran out of credits (resumable once credits arrive). */
export const runsOutOfCredits = (db: Database, accountId: string) =>
  db
    .select()
    .from(bulkJobs)
    .where(
      and(
        eq(bulkJobs.accountId, accountId),
        eq(bulkJobs.status, "completed"),
        eq(bulkJobs.stoppedReason, "insufficient_credits"),
        eq(bulkJobs.inputExpired, false),
      ),
    )
    .orderBy(bulkJobs.id)
    .limit(100);

/** An account's runs of every product, newest first, one page. */
export const listAccountJobs = (db: Database, accountId: string, page: number) =>
  pageOf(db, eq(bulkJobs.accountId, accountId), page);
