import { eq, sql } from "drizzle-orm";
import { database } from "../../db/client";
import { bulkJobs } from "../../db/schema";
import type { BulkProduct } from "../product";
import { armRecovery } from "../recovery";
import { mintSecret } from "../webhooks/secret";
import { CHUNK_ENTRIES, inputKey, requestHash, type JobRow } from "./jobs";
import type { RunMessage } from "./messages";

/** One distinct input of a run, stored as one JSON line in R2. */
export interface Entry {
  /** The input as sent (first occurrence). */
  v: unknown;
  /** Every position in the submitted list where it occurs. */
  i: number[];
  /** Later copies written differently from `v` (`Ann@X.com` after `ann@x.com`), by position. */
  o?: Record<number, unknown>;
}

export interface CreateJob {
  accountId: string;
  keyId: string;
  inputs: unknown[];
  /** Options every row shares, as sent (`refresh`, `max_age`, and the product's own). */
  options: Record<string, unknown>;
  webhookUrl: string | null;
  idempotencyKey: string | null;
}

function distinct(product: BulkProduct, inputs: unknown[]): Entry[] {
  const byKey = new Map<string, Entry>();
  inputs.forEach((input, index) => {
    const key = product.normalize(input);
    const entry = byKey.get(key);
    if (!entry) byKey.set(key, { v: input, i: [index] });
    else {
      entry.i.push(index);
      if (JSON.stringify(input) !== JSON.stringify(entry.v)) (entry.o ??= {})[index] = input;
    }
  });
  return [...byKey.values()];
}

/** Byte offsets of every chunk's first line, plus the file's length: chunks are read back by range. */
function chunkOffsets(lines: string[]): number[] {
  const encoder = new TextEncoder();
  const offsets: number[] = [];
  let bytes = 0;
  lines.forEach((line, n) => {
    if (n % CHUNK_ENTRIES === 0) offsets.push(bytes);
    bytes += encoder.encode(line).byteLength;
  });
  offsets.push(bytes);
  return offsets;
}

/** Stores the input, then the job, then queues it: the input is durable before anyone is told the job exists. */
export async function createJob(
  env: Env,
  product: BulkProduct,
  job: CreateJob,
): Promise<{ row: JobRow; webhookSecret: string | null }> {
  const db = database(env);
  const entries = distinct(product, job.inputs);
  const lines = entries.map((e) => `${JSON.stringify(e)}\n`);
  const now = Date.now();
  const webhookSecret = job.webhookUrl ? mintSecret() : null;
  const [row] = await db
    .insert(bulkJobs)
    .values({
      accountId: job.accountId,
      keyId: job.keyId,
      product: product.name,
      status: "queued",
      total: job.inputs.length,
      duplicateCount: job.inputs.length - entries.length,
      counts: Object.fromEntries((product.bulk?.counters ?? []).map((k) => [k, 0])),
      entries: entries.length,
      chunkOffsets: chunkOffsets(lines),
      options: job.options,
      webhookUrl: job.webhookUrl,
      webhookSecret,
      idempotencyKey: job.idempotencyKey,
      requestHash: await requestHash(job.inputs, job.webhookUrl),
      createdAt: now,
      updatedAt: now,
      // One statement: two runs created at once still get different numbers (D1 runs one write at a time).
      accountRun: sql`(SELECT COALESCE(MAX(account_run), 0) + 1 FROM bulk_jobs WHERE account_id = ${job.accountId})`,
    })
    .returning();
  try {
    await env.RESULTS.put(inputKey(row!.id), lines.join(""), { httpMetadata: { contentType: "application/jsonl" } });
  } catch (err) {
    await db.delete(bulkJobs).where(eq(bulkJobs.id, row!.id));
    throw err;
  }
  await Promise.all([env.JOBS.send({ type: "run", jobId: row!.id } satisfies RunMessage), armRecovery(env, now)]);
  return { row: row!, webhookSecret };
}
