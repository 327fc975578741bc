import { and, eq, inArray, sql } from "drizzle-orm";
import { database } from "../src/db/client";
import { apiKeys, bulkJobs } from "../src/db/schema";
import { deliver } from "../src/platform/webhooks";
import { deliveryConfig } from "../src/routes/webhooks";
import { BULK_PRODUCTS } from "../src/jobs/email-bulk";
import { CHUNK_ENTRIES, inputKey, recordProgress, resultsPrefix, type Entry, type JobMessage, type JobRow } from "../src/jobs/bulk-engine";
import type { BulkProduct } from "../src/jobs/product";
import { recheck } from "../src/products/email/settle";
import { deliverMonitorWebhook, runDueMonitor } from "./monitors";

/** A consumer works on one run for at most this long, then queues its continuation so other runs get a turn. */
const SLICE_MS = 20_000;

const productOf = (row: JobRow) => BULK_PRODUCTS[row.product as keyof typeof BULK_PRODUCTS] as BulkProduct | undefined;

const csvCell = (value: string | number | boolean | null) => {
  if (value === null) return "";
  const text = String(value);
  // Quote what would break the row, and neutralise spreadsheet formulas (CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

/** The finished event exactly as first delivered; frozen on the row so redeliveries send the same bytes. */
function finishedBody(product: BulkProduct, row: JobRow): string {
  const job = {
    id: row.id,
    status: row.status,
    total: row.total,
    processed: row.processed,
    ...row.counts,
    credits_used: row.creditsUsed,
    stopped_reason: row.stoppedReason,
    finished_at: row.finishedAt === null ? null : new Date(row.finishedAt).toISOString(),
  };
  return JSON.stringify({ event: product.event, job });
}

/** Settles a run once (whoever gets here first) and queues its completion webhook. */
export async function finishJob(env: Env, jobId: number, status: "completed" | "failed" | "cancelled", stoppedReason: string | null = null) {
  const db = database(env);
  const now = Date.now();
  const [row] = await db
    .update(bulkJobs)
    .set({ status, stoppedReason, finishedAt: now, updatedAt: now })
    .where(and(eq(bulkJobs.id, jobId), inArray(bulkJobs.status, ["queued", "processing"])))
    .returning();
  if (!row) return;
  const product = productOf(row);
  if (!product || !row.webhookUrl) return;
  await db.update(bulkJobs).set({ webhookBody: finishedBody(product, row), webhookStatus: "pending", webhookDetail: null }).where(eq(bulkJobs.id, jobId));
  await env.JOBS.send({ type: "webhook", jobId } satisfies JobMessage);
}

async function readChunk(env: Env, row: JobRow, chunk: number): Promise<Entry[] | null> {
  const offset = row.chunkOffsets[chunk]!;
  const length = row.chunkOffsets[chunk + 1]! - offset;
  const object = await env.RESULTS.get(inputKey(row.id), { range: { offset, length } });
  if (!object) return null;
  return (await object.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as Entry);
}

/**
 * Works through a run's chunks in order until it is done, stopped, cancelled or out of time. Each step bills through
 * the account's credits with an operation id unique to (run, first entry), and records progress only if nobody
 * recorded that step first, so a redelivered message neither loses nor duplicates nor double-bills a row.
 */
export async function runJob(env: Env, jobId: number): Promise<void> {
  const db = database(env);
  const started = Date.now();
  await db.update(bulkJobs).set({ status: "processing", updatedAt: started }).where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.status, "queued")));
  while (true) {
    // Let the event loop look at the network between chunks (a timer, not a microtask).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const row = await db.select().from(bulkJobs).where(eq(bulkJobs.id, jobId)).get();
    if (!row || row.status !== "processing") return;
    if (row.cancelRequested) return finishJob(env, jobId, "cancelled");
    if (row.nextEntry >= row.entries) return finishJob(env, jobId, "completed");
    const product = productOf(row);
    const key = await db.select({ cap: apiKeys.dailyCreditCap }).from(apiKeys).where(eq(apiKeys.id, row.keyId)).get();
    if (!product) return finishJob(env, jobId, "failed");
    if (Date.now() - started > SLICE_MS) {
      await env.JOBS.send({ type: "run", jobId } satisfies JobMessage);
      return;
    }
    const chunk = Math.floor(row.nextEntry / CHUNK_ENTRIES);
    const stored = await readChunk(env, row, chunk);
    if (!stored) return finishJob(env, jobId, "failed");
    const entries = stored.slice(row.nextEntry - chunk * CHUNK_ENTRIES);
    const operationId = `bulk:${row.id}:${row.nextEntry}`;
    const result = await product.process(
      { env, accountId: row.accountId, keyId: row.keyId, dailyCreditCap: key?.cap ?? null, operationId },
      entries.map((e) => e.v),
      row.options,
    );
    const done = entries.slice(0, result.rows.length);
    const lines: string[] = [];
    const counts: Record<string, number> = {};
    done.forEach((entry, n) => {
      for (const [k, index] of entry.i.entries()) {
        const row = k === 0 ? result.rows[n]! : product.duplicateRow(result.rows[n]!, entry.o?.[index] ?? entry.v);
        lines.push([index, ...row].map(csvCell).join(","));
        counts[result.countKey[n]!] = (counts[result.countKey[n]!] ?? 0) + 1;
      }
    });
    if (lines.length) {
      await env.RESULTS.put(`${resultsPrefix(row.id)}${String(row.nextEntry).padStart(7, "0")}.csv`, `${lines.join("\n")}\n`);
    }
    const rows = done.reduce((sum, e) => sum + e.i.length, 0);
    await recordProgress(db, row, row.nextEntry, done.length, rows, result.creditsUsed, counts);
    if (result.stoppedReason) return finishJob(env, jobId, "completed", result.stoppedReason);
  }
}

/** Delivers (or redelivers) a settled run's completion webhook and records the outcome. */
export async function deliverJobWebhook(env: Env, jobId: number): Promise<void> {
  const db = database(env);
  const row = await db.select().from(bulkJobs).where(eq(bulkJobs.id, jobId)).get();
  if (!row?.webhookUrl || !row.webhookSecret || !row.webhookBody || row.webhookStatus !== "pending") return;
  const result = await deliver(row.webhookUrl, row.webhookBody, row.webhookSecret, deliveryConfig(env));
  await db
    .update(bulkJobs)
    .set({ webhookStatus: result.delivered ? "delivered" : "failed", webhookDetail: result.detail })
    .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.webhookStatus, "pending")));
}

/** Queue consumer: every message is idempotent, so a retried batch is harmless. */
export async function handleJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      if (message.body.type === "run") await runJob(env, message.body.jobId);
      else if (message.body.type === "webhook") await deliverJobWebhook(env, message.body.jobId);
      else if (message.body.type === "recheck") await recheck(env, message.body);
      else if (message.body.type === "monitor_run") await runDueMonitor(env, message.body.monitorId, message.body.dueAt);
      else await deliverMonitorWebhook(env, message.body.monitorId, message.body.body);
      message.ack();
    } catch (err) {
      console.error(JSON.stringify({ event: "job_message_failed", message: message.id, type: message.body.type, error: String(err) }));
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
}

/** Cron: a run nobody has touched for 5 minutes lost its consumer; queue it again. */
export async function recoverStalledJobs(env: Env, now = Date.now()) {
  const stalled = await database(env)
    .select({ id: bulkJobs.id })
    .from(bulkJobs)
    .where(and(inArray(bulkJobs.status, ["queued", "processing"]), sql`${bulkJobs.updatedAt} < ${now - 5 * 60_000}`));
  for (const { id } of stalled) await env.JOBS.send({ type: "run", jobId: id } satisfies JobMessage);
  return stalled.length;
}
