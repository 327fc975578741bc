import { and, eq, sql } from "drizzle-orm";
import { randomToken, sha256Hex } from "../auth/keys";
import { database, type Database } from "../db/client";
import { bulkJobs } from "../db/schema";
import type { RecheckMessage } from "../products/email/settle";
import type { BulkProduct } from "./product";

/**
 * The bulk engine, generic over a product: stores the distinct inputs in R2 (one JSON line each, read back by chunk
 * ranges), keeps state and counters in D1, and drives the work through the JOBS queue (bulk-runner.ts).
 */
export const CHUNK_ENTRIES = 200;
export const RETENTION_DAYS = 30;
export const INPUT_RETENTION_DAYS = 7;
export const PER_PAGE = 100;

export type JobRow = typeof bulkJobs.$inferSelect;

export type JobMessage =
  | { type: "run"; jobId: number }
  | { type: "webhook"; jobId: number }
  | RecheckMessage
  | { type: "monitor_run"; monitorId: number; dueAt: number }
  | { type: "monitor_webhook"; monitorId: number; body: string };

export const inputKey = (jobId: number) => `bulk/${jobId}/input.jsonl`;
export const resultsPrefix = (jobId: number) => `bulk/${jobId}/results/`;

export interface Entry {
  /** The input as sent (first occurrence). */
  v: string;
  /** Every position in the submitted list where it occurs. */
  i: number[];
  /** Later copies spelled differently from `v` (`Ann@X.com` after `ann@x.com`), by position. */
  o?: Record<number, string>;
}

export interface CreateJob {
  accountId: string;
  keyId: string;
  inputs: string[];
  options: Record<string, unknown>;
  webhookUrl: string | null;
  idempotencyKey: string | null;
}

/** Same addresses (in order) and same webhook URL: what decides whether an Idempotency-Key is reused. */
export const requestHash = (inputs: string[], webhookUrl: string | null) => sha256Hex(JSON.stringify([inputs, webhookUrl]));

function distinct(product: BulkProduct, inputs: string[]): Entry[] {
  const byKey = new Map<string, Entry>();
  inputs.forEach((input, index) => {
    const key = product.dedupeKey(input);
    const entry = byKey.get(key);
    if (!entry) byKey.set(key, { v: input, i: [index] });
    else {
      entry.i.push(index);
      if (input !== entry.v) (entry.o ??= {})[index] = input;
    }
  });
  return [...byKey.values()];
}

/** Stores the input, then the job, then queues it: the input is durable before anyone is told the job exists. */
export async function createJob(env: Env, product: BulkProduct, job: CreateJob): Promise<{ row: JobRow; webhookSecret: string | null }> {
  const db = database(env);
  const entries = distinct(product, job.inputs);
  const encoder = new TextEncoder();
  const lines = entries.map((e) => `${JSON.stringify(e)}\n`);
  const offsets: number[] = [];
  let bytes = 0;
  lines.forEach((line, n) => {
    if (n % CHUNK_ENTRIES === 0) offsets.push(bytes);
    bytes += encoder.encode(line).byteLength;
  });
  offsets.push(bytes);
  const now = Date.now();
  const webhookSecret = job.webhookUrl ? `whsec_${randomToken(32)}` : null;
  const [row] = await db
    .insert(bulkJobs)
    .values({
      accountId: job.accountId,
      keyId: job.keyId,
      product: product.name,
      status: "queued",
      total: job.inputs.length,
      duplicateCount: job.inputs.length - entries.length,
      counts: Object.fromEntries(product.countKeys.map((k) => [k, 0])),
      entries: entries.length,
      chunkOffsets: offsets,
      options: job.options,
      webhookUrl: job.webhookUrl,
      webhookSecret,
      idempotencyKey: job.idempotencyKey,
      requestHash: await requestHash(job.inputs, job.webhookUrl),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  try {
    await env.RESULTS.put(inputKey(row!.id), lines.join(""), { httpMetadata: { contentType: "application/jsonl" } });
  } catch (err) {
    await db.delete(bulkJobs).where(eq(bulkJobs.id, row!.id));
    throw err;
  }
  await env.JOBS.send({ type: "run", jobId: row!.id } satisfies JobMessage);
  return { row: row!, webhookSecret };
}

export async function findJob(db: Database, product: BulkProduct, accountId: string, jobId: number) {
  return db
    .select()
    .from(bulkJobs)
    .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.accountId, accountId), eq(bulkJobs.product, product.name)))
    .get();
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The job object (spec, "Bulk job object"); the webhook secret is never part of it. */
export function jobView(row: JobRow) {
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
    webhook_status: row.webhookStatus,
    webhook_detail: row.webhookDetail,
    created_at: iso(row.createdAt),
    finished_at: iso(row.finishedAt),
  };
}

/** Adds one chunk's rows to the counters, only if nobody recorded them first (a redelivered message). */
export async function recordProgress(db: Database, job: JobRow, fromEntry: number, entriesDone: number, rows: number, credits: number, counts: Record<string, number>) {
  let countsSql = sql`${bulkJobs.counts}`;
  for (const [key, n] of Object.entries(counts)) {
    countsSql = sql`json_set(${countsSql}, ${`$.${key}`}, coalesce(json_extract(${bulkJobs.counts}, ${`$.${key}`}), 0) + ${n})`;
  }
  const updated = await db
    .update(bulkJobs)
    .set({
      nextEntry: fromEntry + entriesDone,
      processed: sql`${bulkJobs.processed} + ${rows}`,
      creditsUsed: sql`${bulkJobs.creditsUsed} + ${credits}`,
      counts: countsSql,
      updatedAt: Date.now(),
    })
    .where(and(eq(bulkJobs.id, job.id), eq(bulkJobs.nextEntry, fromEntry)))
    .returning({ id: bulkJobs.id });
  return updated.length > 0;
}
