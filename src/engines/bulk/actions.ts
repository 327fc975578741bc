import { database } from "../../db/client";
import type { BulkProduct } from "../product";
import { redeliverLatest } from "../webhooks/outbox";
import { resultsStream } from "./csv";
import { FINISHED, jobById, markResumed, requestCancel, runsOutOfCredits, type JobRow } from "./jobs";
import type { RunMessage } from "./messages";
import { finishJob } from "./run";
import { isGoing, isResumable } from "./run-actions";

/**
 * What a run's owner may do with it once it exists, as the REST routes and the dashboard both ask: the rules live here
 * and a refusal is a value (its code is the spec's error code), which each surface renders its own way.
 */
export type BulkRefusalCode =
  | "JOB_ALREADY_FINISHED"
  | "JOB_NOT_RESUMABLE"
  | "JOB_INPUT_EXPIRED"
  | "RESULTS_NOT_READY"
  | "JOB_CANCELLED"
  | "JOB_FAILED"
  | "WEBHOOK_NOT_CONFIGURED"
  | "JOB_NOT_FINISHED"
  | "IDEMPOTENCY_KEY_REUSED"
  | "VALIDATION_FAILED";

export interface BulkRefusal {
  refused: BulkRefusalCode;
  message: string;
  /** Per field (`emails.3`), for VALIDATION_FAILED. */
  errors?: Record<string, string[]>;
}

export const refusal = (refused: BulkRefusalCode, message: string, errors?: Record<string, string[]>): BulkRefusal =>
  errors ? { refused, message, errors } : { refused, message };

export const isRefusal = (value: unknown): value is BulkRefusal =>
  typeof value === "object" && value !== null && "refused" in value;

const going = (job: JobRow) => isGoing(job.status);

/**
 * Asks a queued or running run to stop: a queued run has no consumer yet to notice the request, so it settles now; a
 * running one stops at its next step. Answers the run as it now stands.
 */
export async function cancelRun(env: Env, job: JobRow): Promise<JobRow | BulkRefusal> {
  if (!going(job)) return refusal("JOB_ALREADY_FINISHED", `The run is already ${job.status}.`);
  const db = database(env);
  await requestCancel(db, job.id);
  if (job.status === "queued") await finishJob(env, job.id, "cancelled");
  return (await jobById(db, job.id)) ?? job;
}

/** Takes up a run that stopped for credits (or its key's daily cap) where it stopped, once. */
export async function resumeRun(env: Env, job: JobRow): Promise<JobRow | BulkRefusal> {
  if (!isResumable(job.status, job.stoppedReason))
    return refusal("JOB_NOT_RESUMABLE", "Only a settled run that stopped for lack of credits can be resumed.");
  if (job.inputExpired)
    return refusal("JOB_INPUT_EXPIRED", "The uploaded list has passed out of retention; submit it again.");
  const resumed = await markResumed(database(env), job.id);
  if (!resumed) return refusal("JOB_NOT_RESUMABLE", "The run is already going again.");
  await env.JOBS.send({ type: "run", jobId: job.id } satisfies RunMessage);
  return resumed;
}

/**
 * Credits arrived (a purchase, a plan, an operator's grant): every run of the account that stopped because the account
 * ran out of credits goes on where it stopped, as if its owner had pressed Resume. Answers the runs resumed. A run
 * stopped by its key's daily cap is left for its owner: more credits do not lift a cap.
 */
export async function resumeWhenCreditsArrive(env: Env, accountId: string): Promise<JobRow[]> {
  const stopped = await runsOutOfCredits(database(env), accountId);
  const resumed = await Promise.all(stopped.map((job) => resumeRun(env, job)));
  return resumed.filter((job): job is JobRow => !isRefusal(job));
}

export interface RunResults {
  filename: string;
  body: ReadableStream<Uint8Array>;
}

/** The run's CSV (all rows, or the rows of one counter), once it settled with at least one row. */
export function runResults(env: Env, product: BulkProduct, job: JobRow, variant?: string): RunResults | BulkRefusal {
  if (going(job)) return refusal("RESULTS_NOT_READY", "The run is still going.");
  if (job.status === "cancelled" && job.processed === 0)
    return refusal("JOB_CANCELLED", "The run was cancelled before any row was processed.");
  if (job.status === "failed" && job.processed === 0)
    return refusal("JOB_FAILED", "The run failed before any row was written.");
  return {
    filename: `${product.name}-bulk-${job.id}${variant ? `-${variant}` : ""}.csv`,
    body: resultsStream(env, job.id, product, variant),
  };
}

/**
 * Queues the run's finished event again (the same bytes, attempts from 0). The caller has counted the person's
 * redelivery budget first (`redeliveryHit`, src/limits/admission.ts), as a refused call still counts.
 */
export async function redeliverRun(env: Env, job: JobRow): Promise<JobRow | BulkRefusal> {
  if (!job.webhookUrl) return refusal("WEBHOOK_NOT_CONFIGURED", "The run was created without webhook_url.");
  const finished = (FINISHED as readonly string[]).includes(job.status);
  if (!finished || !(await redeliverLatest(env, "job", String(job.id))))
    return refusal("JOB_NOT_FINISHED", "The run is still queued or running.");
  return job;
}
