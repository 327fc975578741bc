import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { database } from "../../../src/db/client";
import {
  cancelRun,
  isRefusal,
  redeliverRun,
  resumeRun,
  runResults,
  type BulkRefusal,
} from "../../../src/engines/bulk/actions";
import { jobById, type JobRow } from "../../../src/engines/bulk/jobs";
import { startRun, type StartRun } from "../../../src/engines/bulk/start";
import { productNamed } from "../../../src/products/registry";
import { createAccount, type TestAccount } from "../../helpers";

vi.setConfig({ testTimeout: 30_000 });

const email = productNamed("email")!;

/** A run of the account, created by the engine and left to the queue, then put into `state` by hand. */
async function runIn(acct: TestAccount, state: Partial<Record<string, string | number | null>>, webhook = false) {
  const started = await startRun(env, email, request(acct, ["deliverable@service.test"], webhook));
  if (isRefusal(started)) throw new Error(started.message);
  const id = started.job.id;
  // Wait for the queue's run to settle, so the hand-set state below is the last word.
  for (let i = 0; i < 80; i++) {
    const row = await jobById(database(env), id);
    if (row && !["queued", "processing"].includes(row.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const columns = Object.keys(state);
  if (columns.length)
    await env.DB.prepare(`UPDATE bulk_jobs SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`)
      .bind(...Object.values(state), id)
      .run();
  return (await jobById(database(env), id))!;
}

const request = (acct: TestAccount, list: unknown[], webhook = false, key: string | null = null): StartRun => ({
  accountId: acct.accountId,
  keyId: acct.keyId,
  list,
  options: {},
  webhookUrl: webhook ? `${env.RECEIVER_URL}/ok/actions-${crypto.randomUUID()}` : null,
  idempotencyKey: key,
});

const code = (value: JobRow | BulkRefusal | unknown) => (isRefusal(value) ? value.refused : "ok");

describe("bulk engine: what a run's owner may do (refusals as values)", () => {
  it("cancelRun: a queued run settles cancelled at once; a finished one is JOB_ALREADY_FINISHED", async () => {
    const acct = await createAccount({ pack: 5 });
    const done = await runIn(acct, {});
    expect(await cancelRun(env, done)).toEqual({
      refused: "JOB_ALREADY_FINISHED",
      message: "The run is already completed.",
    });
    const queued = await runIn(acct, { status: "queued", processed: 0, next_entry: 0, finished_at: null });
    const cancelled = await cancelRun(env, queued);
    expect(isRefusal(cancelled)).toBe(false);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelRequested: true });
  });

  it("resumeRun: only a run stopped for credits, once; an expired input is JOB_INPUT_EXPIRED", async () => {
    const acct = await createAccount({ pack: 5 });
    expect(code(await resumeRun(env, await runIn(acct, {})))).toBe("JOB_NOT_RESUMABLE");
    const expired = await runIn(acct, { stopped_reason: "insufficient_credits", input_expired: 1 });
    expect(code(await resumeRun(env, expired))).toBe("JOB_INPUT_EXPIRED");
    const stopped = await runIn(acct, { stopped_reason: "key_spend_cap" });
    const resumed = await resumeRun(env, stopped);
    expect(resumed).toMatchObject({ status: "processing", stoppedReason: null });
    expect(await resumeRun(env, stopped)).toEqual({
      refused: "JOB_NOT_RESUMABLE",
      message: "The run is already going again.",
    });
  });

  it("runResults: not while going; JOB_CANCELLED / JOB_FAILED before any row; else the CSV", async () => {
    const acct = await createAccount({ pack: 5 });
    const done = await runIn(acct, {});
    const results = runResults(env, email, done, "deliverable");
    if (isRefusal(results)) throw new Error(results.message);
    expect(results.filename).toBe(`email-bulk-${done.id}-deliverable.csv`);
    expect((await new Response(results.body).text()).split("\n")[1]).toMatch(/^0,deliverable@service\.test,/);
    expect(code(runResults(env, email, { ...done, status: "processing" }))).toBe("RESULTS_NOT_READY");
    expect(code(runResults(env, email, { ...done, status: "queued" }))).toBe("RESULTS_NOT_READY");
    expect(code(runResults(env, email, { ...done, status: "cancelled", processed: 0 }))).toBe("JOB_CANCELLED");
    expect(code(runResults(env, email, { ...done, status: "failed", processed: 0 }))).toBe("JOB_FAILED");
    expect(code(runResults(env, email, { ...done, status: "cancelled", processed: 1 }))).toBe("ok");
  });

  it("redeliverRun: WEBHOOK_NOT_CONFIGURED first, then JOB_NOT_FINISHED, else the run", async () => {
    const acct = await createAccount({ pack: 5 });
    const plain = await runIn(acct, {});
    expect(code(await redeliverRun(env, { ...plain, status: "processing" }))).toBe("WEBHOOK_NOT_CONFIGURED");
    const hooked = await runIn(acct, {}, true);
    expect(code(await redeliverRun(env, { ...hooked, status: "processing" }))).toBe("JOB_NOT_FINISHED");
    // Finished, with its event in the outbox (the finish queues it).
    let redelivered = await redeliverRun(env, hooked);
    for (let i = 0; i < 40 && isRefusal(redelivered); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      redelivered = await redeliverRun(env, hooked);
    }
    expect(redelivered).toMatchObject({ id: hooked.id });
  });

  it("startRun: an Idempotency-Key replays the first answer, refuses other values; bad rows refuse", async () => {
    const acct = await createAccount({ pack: 5 });
    const key = `actions-${crypto.randomUUID()}`;
    const first = await startRun(env, email, request(acct, ["role@service.test"], false, key));
    const again = await startRun(env, email, request(acct, ["role@service.test"], false, key));
    expect(isRefusal(first)).toBe(false);
    expect(again).toEqual(first);
    expect(await startRun(env, email, request(acct, ["other@service.test"], false, key))).toEqual({
      refused: "IDEMPOTENCY_KEY_REUSED",
      message: "This Idempotency-Key was already used with different values or webhook URL.",
    });
    const address = productNamed("address")!;
    const refused = await startRun(env, address, request(acct, ["1 Main Street, Springfield"]));
    expect(code(refused)).toBe("VALIDATION_FAILED");
    expect((refused as BulkRefusal).errors).toEqual({ "addresses.0": [expect.stringContaining("country")] });
  });
});
