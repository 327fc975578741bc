import { and, eq, inArray } from "drizzle-orm";
import { database } from "../../db/client";
import { bulkJobs } from "../../db/schema";
import { storedPayer } from "../credits/payer";
import type { BulkProduct } from "../product";
import { policyCells, policyColumns } from "../policy/apply";
import { armRecovery, HEARTBEAT_MS } from "../recovery";
import { walk } from "../walk/walk";
import { enqueueDelivery } from "../webhooks/outbox";
import { csvCell, csvHeader, parseCsvLine, partRows, partText, rowCounters, type Cell } from "./csv";
import type { Entry } from "./create";
import { queueFinishedMail } from "./finished-mail";
import { CHUNK_ENTRIES, type FINISHED, inputKey, jobById, recordProgress, resultsPrefix, type JobRow } from "./jobs";
import type { RunMessage } from "./messages";

/** A consumer works on one run for at most this long, then queues its continuation so other runs get a turn. */
const SLICE_MS = 20_000;

export type ProductLookup = (name: string) => BulkProduct | undefined;

/** The fields of a run its finished event reports. */
export type FinishedFields = Pick<
  JobRow,
  "id" | "product" | "status" | "total" | "processed" | "counts" | "creditsUsed" | "stoppedReason" | "finishedAt"
>;

/**
 * The finished event exactly as first delivered; frozen in the outbox so redeliveries send the same bytes. Test
 * deliveries are built by this function too (engines/webhooks/samples.ts).
 */
export function finishedBody(row: FinishedFields): string {
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
  return JSON.stringify({ event: `bulk_${row.product}_job.finished`, job });
}

/** Hands a finished run's event to the outbox (a run without a webhook URL has none). */
export async function queueFinishedEvent(env: Env, row: JobRow) {
  if (!row.webhookUrl || !row.webhookSecret) return;
  const body = finishedBody(row);
  await enqueueDelivery(env, {
    owner: "job",
    ownerId: String(row.id),
    event: `bulk_${row.product}_job.finished`,
    url: row.webhookUrl,
    secret: row.webhookSecret,
    body,
  });
}

/**
 * Settles a run once (whoever gets here first) and hands its completion webhook and mail to their outboxes. A crash
 * between the finish and either leaves a finished run without a delivery record or without `finished_mail_at`, which
 * the recovery sweep finds (`requeueUnsentEvents`, `requeueUnsentMail`).
 */
export async function finishJob(
  env: Env,
  jobId: number,
  status: (typeof FINISHED)[number],
  stoppedReason: string | null = null,
) {
  const db = database(env);
  const now = Date.now();
  const [row] = await db
    .update(bulkJobs)
    .set({ status, stoppedReason, finishedAt: now, updatedAt: now, finishedMailAt: null })
    .where(and(eq(bulkJobs.id, jobId), inArray(bulkJobs.status, ["queued", "processing"])))
    .returning();
  if (!row) return;
  await queueFinishedEvent(env, row);
  // The mail is a courtesy beside the webhook: a failure to queue it is logged and left to the recovery sweep, never a
  // reason to redo the finish.
  await queueFinishedMail(env, row).catch((err) =>
    console.error(JSON.stringify({ event: "bulk_finished_mail_failed", job: row.id, error: String(err) })),
  );
}

async function readChunk(env: Env, row: JobRow, chunk: number): Promise<Entry[] | null> {
  const offset = row.chunkOffsets[chunk]!;
  const length = row.chunkOffsets[chunk + 1]! - offset;
  const object = await env.RESULTS.get(inputKey(row.id), { range: { offset, length } });
  if (!object) return null;
  return (await object.text())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry);
}

const cellOf = (input: unknown): Cell => (typeof input === "string" ? input : JSON.stringify(input));

/** One chunk through the paid walk: a CSV line for every position of every answered entry. */
async function runChunk(env: Env, product: BulkProduct, row: JobRow, entries: Entry[]) {
  const shape = product.bulk!;
  const payer = await storedPayer(env, row.accountId, row.keyId);
  const operationId = `bulk:${row.id}:${row.nextEntry}`;
  const options = {
    refresh: row.options.refresh === true,
    maxAgeSeconds: (row.options.max_age as number | null) ?? null,
    honorSuppressions: true,
    extra: row.options,
  };
  const run = await walk(product, {
    env,
    payer,
    requestId: operationId,
    operationId,
    inputs: entries.map((e) => e.v),
    options,
  });
  const header = ["input", ...shape.columns, ...policyColumns(product)];
  const lines: string[] = [];
  run.items.forEach((item, n) => {
    const entry = entries[n]!;
    const values = [...shape.row(item.data), ...policyCells(product, item.data)];
    for (const [k, index] of entry.i.entries()) {
      const spelling = k === 0 ? entry.v : (entry.o?.[index] ?? entry.v);
      const own = k === 0 || typeof spelling !== "string" ? {} : (shape.spell?.(spelling) ?? {});
      const cells = header.map((column, c) => (c === 0 ? cellOf(spelling) : (own[column] ?? values[c - 1]!)));
      lines.push([index, ...cells, k === 0 ? item.meta.credits_used : 0, item.meta.suppressed].map(csvCell).join(","));
    }
  });
  return { run, lines };
}

/**
 * A chunk's part is written once: when a second run of the same chunk finds it stored (a redelivered message, or a
 * run re-queued after a crash), the stored part stands, because it holds what the first run charged; the second run's
 * answers are repeats of those and would read as free.
 */
async function keepFirstPart(env: Env, key: string, lines: string[]): Promise<string[]> {
  const stored = await env.RESULTS.get(key);
  if (stored) return partRows(await stored.text());
  if (lines.length) await env.RESULTS.put(key, partText(lines));
  return lines;
}

/** What a part adds to the job: its rows, credits and counters, and how many of the chunk's entries it answered. */
function tallyPart(product: BulkProduct, lines: string[], entries: Entry[]) {
  const header = csvHeader(product);
  const credits = header.indexOf("credits_used");
  const counts: Record<string, number> = {};
  const indices = new Set<number>();
  let charged = 0;
  for (const line of lines) {
    const cells = parseCsvLine(line);
    indices.add(Number(cells[0]));
    charged += Number(cells[credits]) || 0;
    for (const counter of rowCounters(product, header, cells)) counts[counter] = (counts[counter] ?? 0) + 1;
  }
  const answered = entries.findIndex((e) => !indices.has(e.i[0]!));
  return { rows: lines.length, credits: charged, counts, entriesDone: answered === -1 ? entries.length : answered };
}

/** Runs `work` while touching the run's `updated_at` every HEARTBEAT_MS, so the recovery sweep sees it is alive. */
async function withHeartbeat<T>(db: ReturnType<typeof database>, jobId: number, work: () => Promise<T>): Promise<T> {
  const beat = setInterval(() => {
    db.update(bulkJobs)
      .set({ updatedAt: Date.now() })
      .where(eq(bulkJobs.id, jobId))
      .run()
      .catch(() => {});
  }, HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/**
 * Works through a run's chunks in order until it is done, stopped, cancelled or out of time. Each chunk bills through
 * the walk with an operation id unique to (run, first entry), and progress is recorded only if nobody recorded that
 * chunk first, so a redelivered message neither loses nor duplicates nor double-bills a row.
 */
export async function runJob(env: Env, jobId: number, productNamed: ProductLookup): Promise<void> {
  const db = database(env);
  const started = Date.now();
  // Should this consumer die, the recovery alarm picks the run up again.
  await Promise.all([
    armRecovery(env, started),
    db
      .update(bulkJobs)
      .set({ status: "processing", updatedAt: started })
      .where(and(eq(bulkJobs.id, jobId), eq(bulkJobs.status, "queued"))),
  ]);
  while (true) {
    // Let the event loop look at the network between chunks (a timer, not a microtask).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const row = await jobById(db, jobId);
    if (row?.status !== "processing") return;
    if (row.cancelRequested) return finishJob(env, jobId, "cancelled");
    if (row.nextEntry >= row.entries) return finishJob(env, jobId, "completed");
    const product = productNamed(row.product);
    if (!product?.bulk) return finishJob(env, jobId, "failed");
    if (Date.now() - started > SLICE_MS) return void (await env.JOBS.send({ type: "run", jobId } satisfies RunMessage));
    const chunk = Math.floor(row.nextEntry / CHUNK_ENTRIES);
    const stored = await readChunk(env, row, chunk);
    if (!stored) return finishJob(env, jobId, "failed");
    const entries = stored.slice(row.nextEntry - chunk * CHUNK_ENTRIES);
    const { run, lines } = await withHeartbeat(db, jobId, () => runChunk(env, product, row, entries));
    const part = await keepFirstPart(
      env,
      `${resultsPrefix(row.id)}${String(row.nextEntry).padStart(7, "0")}.csv`,
      lines,
    );
    const tally = tallyPart(product, part, entries);
    await recordProgress(db, row, { fromEntry: row.nextEntry, ...tally, suppressed: run.suppressedNow ?? 0 });
    if (tally.entriesDone < entries.length)
      return finishJob(env, jobId, "completed", run.refused ?? run.stoppedReason ?? "insufficient_credits");
  }
}
