import { database } from "../../db/client";
import type { BulkProduct } from "../product";
import { refusal, type BulkRefusal } from "./actions";
import { createJob } from "./create";
import { findByIdempotencyKey, jobViewOf, requestHash, saveCreateResponse, type JobView } from "./jobs";

/** A create request once its body and webhook URL are valid: who pays, the list as sent, the run's options. */
export interface StartRun {
  accountId: string;
  keyId: string;
  /** The list under the product's field, as sent (rows, for a product with `BulkShape.rows`). */
  list: unknown[];
  options: Record<string, unknown>;
  webhookUrl: string | null;
  idempotencyKey: string | null;
}

/** The create answer: the job, and the webhook secret (returned here only, and on a replay of this answer). */
export interface Started {
  job: JobView;
  webhook_secret: string | null;
}

/**
 * The first answer for this Idempotency-Key if the request is the same one again (same values in the same order, same
 * webhook URL); a refusal if the key was used otherwise; null if the key is new. While the first request is still
 * creating the run (its answer not saved yet: a double submit), the answer is read from the run's row, which holds
 * the same job and webhook secret.
 */
async function replay(env: Env, product: BulkProduct, run: StartRun, asked: { key: string; hash: string }) {
  const { key, hash } = asked;
  const db = database(env);
  const existing = await findByIdempotencyKey(db, product, run.accountId, key);
  if (!existing) return null;
  if (existing.requestHash !== hash)
    return refusal(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was already used with different values or webhook URL.",
    );
  if (existing.createResponse) return JSON.parse(existing.createResponse) as Started;
  return { job: await jobViewOf(db, existing, product), webhook_secret: existing.webhookSecret } satisfies Started;
}

/** The rows as the product's inputs, read with the run's options (`BulkShape.rows`); rows that cannot be one refuse. */
function resolveRows(product: BulkProduct, rows: unknown[], options: Record<string, unknown>): unknown[] | BulkRefusal {
  const resolve = product.bulk!.rows?.resolve;
  if (!resolve) return rows;
  const errors: Record<string, string[]> = {};
  const inputs = rows.map((row, i) => {
    const resolved = resolve(row, options);
    if ("error" in resolved) errors[`${product.bulk!.field}.${i}`] = [resolved.error];
    return "input" in resolved ? resolved.input : null;
  });
  if (Object.keys(errors).length) return refusal("VALIDATION_FAILED", "The request has invalid fields.", errors);
  return inputs;
}

/**
 * Creates a run (or replays the first answer of its Idempotency-Key) and records the answer for later replays. Creation
 * never refuses for credits: a run on an empty balance stops at once with `insufficient_credits`.
 */
export async function startRun(env: Env, product: BulkProduct, run: StartRun): Promise<Started | BulkRefusal> {
  const key = run.idempotencyKey;
  const hash = await requestHash(run.list, run.webhookUrl);
  const replayed = key ? await replay(env, product, run, { key, hash }) : null;
  if (replayed) return replayed;
  const rows = resolveRows(product, run.list, run.options);
  if (!Array.isArray(rows)) return rows;
  let created: Awaited<ReturnType<typeof createJob>>;
  try {
    created = await createJob(env, product, { ...run, inputs: rows });
  } catch (err) {
    // Two requests raced with one Idempotency-Key: the loser answers like a replay.
    const raced = key ? await replay(env, product, run, { key, hash }) : null;
    if (raced) return raced;
    throw err;
  }
  const db = database(env);
  const data: Started = { job: await jobViewOf(db, created.row, product), webhook_secret: created.webhookSecret };
  await saveCreateResponse(db, created.row.id, data);
  return data;
}
