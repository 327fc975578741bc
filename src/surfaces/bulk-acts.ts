import { z } from "zod";
import { database } from "../db/client";
import { isRefusal, runResults, type BulkRefusal } from "../engines/bulk/actions";
import { findJob, jobViewOf, type JobView } from "../engines/bulk/jobs";
import { startRun, type Started } from "../engines/bulk/start";
import type { Product } from "../engines/product";
import { webhookUrlProblem } from "../engines/webhooks/url-rule";
import { answered, notFoundError, refused, scopeRefusal, type ActOutcome, type KeyAct } from "./key-act";

export const MAX_BULK_ROWS = 100_000;

/**
 * `POST /{product}/bulk`: the list under the product's own field (`emails`), shared options, then the product's own.
 */
export function createBody(product: Product) {
  const shape = product.bulk!;
  return z.object({
    [shape.field]: z
      .array(shape.rows?.schema ?? product.input)
      .min(1)
      .max(MAX_BULK_ROWS),
    webhook_url: z.url().max(2048).nullish(),
    refresh: z.boolean().nullish(),
    max_age: z.int().min(60).max(604_800).nullish(),
    ...(shape.options ?? {}),
  });
}

/** A run's refusal (src/engines/bulk/actions.ts) as a surface's error. */
export const bulkRefused = (r: BulkRefusal) => refused(r.refused, r.message, r.errors);

export interface StartBulk {
  /** The body as `createBody(product)` validated it, by the surface. */
  body: Record<string, unknown>;
  idempotencyKey: string | null;
}

/**
 * Starts a run billed to the key (or replays the first answer of its Idempotency-Key): the API's create route, the
 * `start_bulk_run` tool and the dashboard's upload. The caller counted the request's rate limit first.
 */
export async function startBulk(act: KeyAct, product: Product, start: StartBulk): Promise<ActOutcome<Started>> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const { [product.bulk!.field]: list, webhook_url, ...options } = start.body;
  const webhookUrl = typeof webhook_url === "string" ? webhook_url : null;
  const problem = webhookUrl ? webhookUrlProblem(act.env, webhookUrl) : null;
  if (problem) return refused("VALIDATION_FAILED", "The request has invalid fields.", { webhook_url: [problem] });
  const started = await startRun(act.env, product, {
    accountId: act.principal.accountId,
    keyId: act.principal.keyId,
    list: list as unknown[],
    options,
    webhookUrl,
    idempotencyKey: start.idempotencyKey,
  });
  return isRefusal(started) ? bulkRefused(started) : answered(started);
}

/** The key's account's run of this product, or NOT_FOUND (another account's run too). */
async function accountJob(act: KeyAct, product: Product, jobId: number) {
  return findJob(database(act.env), product, act.principal.accountId, jobId);
}

/** `GET /{product}/bulk/{jobId}` and `get_bulk_run`: the run's status and counters. */
export async function pollBulk(act: KeyAct, product: Product, jobId: number): Promise<ActOutcome<{ job: JobView }>> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const job = await accountJob(act, product, jobId);
  if (!job) return notFoundError("Job");
  return answered({ job: await jobViewOf(database(act.env), job, product) });
}

/** `GET /{product}/bulk/{jobId}/results` and `get_bulk_results`: the CSV as a stream, or why it is not ready. */
export async function bulkResults(
  act: KeyAct,
  product: Product,
  read: { jobId: number; variant: string | undefined },
): Promise<ActOutcome<{ body: ReadableStream; filename: string }>> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const job = await accountJob(act, product, read.jobId);
  if (!job) return notFoundError("Job");
  const results = runResults(act.env, product, job, read.variant);
  return isRefusal(results) ? bulkRefused(results) : answered(results);
}
