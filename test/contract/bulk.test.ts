/**
 * Bulk runs, once per product with `bulk` (spec "Bulk job status", "Bulk email run endpoints"): created with
 * createJob, driven with runJob through a recorded queue so the test owns every step; counters, CSV, duplicates,
 * billing against the ledger, resume after running out of credits, stalled-run recovery and retention.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { createJob } from "../../src/engines/bulk/create";
import { csvHeader, parseCsvLine, resultsStream } from "../../src/engines/bulk/csv";
import { inputKey, jobById, jobView, markResumed } from "../../src/engines/bulk/jobs";
import { sweepBulkRuns } from "../../src/engines/bulk/retention";
import { requeueStalledJobs } from "../../src/engines/bulk/recovery";
import { runJob } from "../../src/engines/bulk/run";
import { RECOVERY_STALL_MS } from "../../src/engines/recovery";
import { policyColumns } from "../../src/engines/policy/apply";
import type { Product } from "../../src/engines/product";
import { bearer, call, accountObject } from "../helpers";
import {
  capturedQueue,
  countersOf,
  DAY_MS,
  funded,
  ledgerCharges,
  lookupWith,
  setUp,
  subjectsWith,
  type Funded,
  type Kind,
  type Samples,
} from "./helpers";

const SUBJECTS = subjectsWith((p) => p.bulk);

/** An input as the CSV's `input` column writes it: a string as is, an object (address) as JSON. */
const cell = (input: unknown) => (typeof input === "string" ? input : JSON.stringify(input));
beforeAll(() => setUp(SUBJECTS));

async function started(product: Product, acct: Funded, inputs: unknown[]) {
  const queue = capturedQueue();
  const { row } = await createJob(queue.env, product, {
    accountId: acct.accountId,
    keyId: acct.keyId,
    inputs,
    options: {},
    webhookUrl: null,
    idempotencyKey: null,
  });
  return { id: row.id, queue };
}

const run = (product: Product, queue: ReturnType<typeof capturedQueue>, id: number) =>
  runJob(queue.env, id, lookupWith(product));
const view = async (id: number) => jobView((await jobById(database(env), id))!);
const csv = (product: Product, id: number) => new Response(resultsStream(env, id, product, undefined)).text();
const jobCharges = (accountId: string, id: number) =>
  ledgerCharges(accountId, (requestId) => requestId.startsWith(`bulk:${id}:`));
const setJob = (id: number, column: "created_at" | "updated_at", at: number, status?: string) =>
  env.DB.prepare(`UPDATE bulk_jobs SET ${column} = ?, status = COALESCE(?, status) WHERE id = ?`)
    .bind(at, status ?? null, id)
    .run();

/** A list with every kind of value the product has, a respelled copy and an exact copy; the kinds in order. */
function mixed(samples: Samples) {
  const [a, b] = samples.paid(2);
  const kinds: [Kind, unknown][] = [
    ["paid", a],
    ["paid", samples.respell(a)],
    ["free", samples.free()],
    ["malformed", samples.malformed()],
  ];
  if (samples.test) kinds.push(["test", samples.test()]);
  kinds.push(["paid", b], ["paid", a]);
  return { inputs: kinds.map(([, v]) => v), kinds: kinds.map(([k]) => k), first: a };
}

describe.each(SUBJECTS)("bulk runs: $label", ({ product, samples, registered }) => {
  it(
    "counts every row once under the product's counters and bills each distinct value once, as the ledger " + "shows",
    async () => {
      const acct = await funded(10);
      const { inputs, kinds } = mixed(samples);
      const { id, queue } = await started(product, acct, inputs);
      await run(product, queue, id);
      const job = (await view(id)) as Record<string, unknown>;
      const expected = Object.fromEntries(
        product.bulk!.counters.map((c) => [c, kinds.filter((k) => countersOf(samples, k).includes(c)).length]),
      );
      expect(job).toMatchObject({
        status: "completed",
        total: inputs.length,
        duplicate_count: 2,
        processed: inputs.length,
        ...expected,
        credits_used: 2,
        stopped_reason: null,
      });
      const rowCounts = kinds.reduce((sum, k) => sum + countersOf(samples, k).length, 0);
      expect(product.bulk!.counters.reduce((sum, c) => sum + (job[c] as number), 0)).toBe(rowCounts);
      expect(await jobCharges(acct.accountId, id)).toMatchObject({ credits: 2 });
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
    },
  );

  it(
    "writes index,input,<columns>,<policy columns>,credits_used,suppressed; duplicates keep their own spelling and " +
      "cost 0",
    async () => {
      const acct = await funded(10);
      const { inputs, first } = mixed(samples);
      const { id, queue } = await started(product, acct, inputs);
      await run(product, queue, id);
      const [header, ...lines] = (await csv(product, id)).trim().split("\n");
      expect(header).toBe(
        ["index", "input", ...product.bulk!.columns, ...policyColumns(product), "credits_used", "suppressed"].join(","),
      );
      expect(header!.split(",")).toEqual(csvHeader(product));
      const rows = new Map(lines.map((line) => parseCsvLine(line)).map((cells) => [Number(cells[0]), cells]));
      // In input order, not grouped by duplicates.
      expect([...rows.keys()]).toEqual(inputs.map((_, i) => i));
      const credits = (i: number) => Number(rows.get(i)!.at(-2));
      expect(inputs.map((_, i) => rows.get(i)![1])).toEqual(inputs.map(cell));
      expect([credits(0), credits(1), credits(inputs.length - 1)]).toEqual([1, 0, 0]);
      expect(inputs.reduce<number>((sum, _, i) => sum + credits(i), 0)).toBe((await view(id)).credits_used);
      const own = product.bulk!.spell?.(String(inputs[1])) ?? {};
      for (const [column, value] of Object.entries(own))
        expect(rows.get(1)![2 + product.bulk!.columns.indexOf(column)]).toBe(value);
      expect(rows.get(inputs.length - 1)![1]).toBe(cell(first));
    },
  );

  it("stops a run for credits with insufficient_credits and finishes it on resume after a top-up", async () => {
    const acct = await funded(1);
    const { id, queue } = await started(product, acct, samples.paid(3));
    await run(product, queue, id);
    expect(await view(id)).toMatchObject({
      status: "completed",
      processed: 1,
      credits_used: 1,
      stopped_reason: "insufficient_credits",
    });
    await accountObject(acct.accountId).addCredits({ bucket: "pack", amount: 5, note: null, requestId: null });
    expect(await markResumed(database(env), id)).toMatchObject({ status: "processing", stoppedReason: null });
    await run(product, queue, id);
    expect(await view(id)).toMatchObject({ status: "completed", processed: 3, credits_used: 3, stopped_reason: null });
    expect(await jobCharges(acct.accountId, id)).toMatchObject({ credits: 3 });
    expect((await csv(product, id)).trim().split("\n")).toHaveLength(4);
  });

  it(
    "re-queues a processing run untouched past the stall time, which then completes; a younger one is left " + "alone",
    async () => {
      const acct = await funded(5);
      const stalled = await started(product, acct, samples.paid(2));
      const busy = await started(product, acct, samples.paid(1));
      await setJob(stalled.id, "updated_at", Date.now() - RECOVERY_STALL_MS - 1_000, "processing");
      await setJob(busy.id, "updated_at", Date.now() - RECOVERY_STALL_MS / 2, "processing");
      const recovery = capturedQueue();
      await requeueStalledJobs(recovery.env, Date.now(), RECOVERY_STALL_MS);
      expect(recovery.sent).toContainEqual({ type: "run", jobId: stalled.id });
      expect(recovery.sent).not.toContainEqual({ type: "run", jobId: busy.id });
      await setJob(busy.id, "updated_at", Date.now(), "cancelled");
      await run(product, recovery, stalled.id);
      expect(await view(stalled.id)).toMatchObject({ status: "completed", processed: 2, credits_used: 2 });
    },
  );

  // A second consumer of the same chunk (a redelivered message, or a re-queued slow run) walks it again, where the
  // first walk's repeats answer every row free: the first part must stand, and the job must report what the ledger
  // charged.
  it(
    "keeps the results of a chunk when a duplicate run message works on it too (redelivery is " + "idempotent)",
    async () => {
      const acct = await funded(5);
      const { id, queue } = await started(product, acct, samples.paid(2));
      let release!: () => void;
      let entered!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const late: Product = {
        ...product,
        local: async (value) => (entered(), await gate, product.local ? product.local(value) : null),
      };
      const duplicate = runJob(queue.env, id, lookupWith(late));
      await inside;
      await run(product, queue, id);
      release();
      await duplicate;
      const lines = (await csv(product, id)).trim().split("\n").slice(1);
      expect(lines.map((line) => Number(parseCsvLine(line).at(-2)))).toEqual([1, 1]);
      expect(await view(id)).toMatchObject({ processed: 2, credits_used: 2 });
    },
  );

  it(
    "reports what the first run charged when a chunk is run again after its part was written (a crash before " +
      "progress)",
    async () => {
      const acct = await funded(5);
      const { id, queue } = await started(product, acct, samples.paid(2));
      await run(product, queue, id);
      await env.DB.prepare(
        "UPDATE bulk_jobs SET status = 'processing', next_entry = 0, processed = 0, credits_used = 0, counts = ? " +
          "WHERE " +
          "id = ?",
      )
        .bind(JSON.stringify(Object.fromEntries(product.bulk!.counters.map((c) => [c, 0]))), id)
        .run();
      await run(product, queue, id);
      expect(await view(id)).toMatchObject({ status: "completed", processed: 2, credits_used: 2 });
      expect(
        (await csv(product, id))
          .trim()
          .split("\n")
          .slice(1)
          .map((line) => Number(parseCsvLine(line).at(-2))),
      ).toEqual([1, 1]);
    },
  );

  it(
    "reports what the ledger charged when a run died after a chunk was charged, before its part was " + "written",
    async () => {
      const acct = await funded(5);
      const { id, queue } = await started(product, acct, samples.paid(2));
      await run(product, queue, id);
      // The state a kill -9 between the chunk's settlement and its part leaves: charged, but no part and no progress.
      await env.RESULTS.delete((await env.RESULTS.list({ prefix: `bulk/${id}/results/` })).objects.map((o) => o.key));
      await env.DB.prepare(
        "UPDATE bulk_jobs SET status = 'processing', finished_at = NULL, next_entry = 0, processed = 0, credits_used " +
          "= " +
          "0, counts = ? WHERE id = ?",
      )
        .bind(JSON.stringify(Object.fromEntries(product.bulk!.counters.map((c) => [c, 0]))), id)
        .run();
      await run(product, queue, id);
      expect(await jobCharges(acct.accountId, id)).toMatchObject({ credits: 2 });
      expect(await view(id)).toMatchObject({ status: "completed", processed: 2, credits_used: 2 });
      expect(
        (await csv(product, id))
          .trim()
          .split("\n")
          .slice(1)
          .map((line) => Number(parseCsvLine(line).at(-2))),
      ).toEqual([1, 1]);
    },
  );

  it("expires a settled run's input after 7 days and deletes the run and its files after 30", async () => {
    const acct = await funded(1);
    const { id, queue } = await started(product, acct, samples.paid(2));
    await run(product, queue, id);
    await setJob(id, "created_at", Date.now() - 6 * DAY_MS);
    await sweepBulkRuns(env);
    expect((await jobById(database(env), id))!.inputExpired).toBe(false);
    await setJob(id, "created_at", Date.now() - 7 * DAY_MS - 60_000);
    await sweepBulkRuns(env);
    expect((await jobById(database(env), id))!.inputExpired).toBe(true);
    expect(await env.RESULTS.head(inputKey(id))).toBeNull();
    expect((await env.RESULTS.list({ prefix: `bulk/${id}/` })).objects).toHaveLength(1);
    if (registered) {
      const resumed = await call(`/api/v1/${product.name}/bulk/${id}/resume`, { method: "POST", ...bearer(acct.key) });
      expect([resumed.status, resumed.body.error.code]).toEqual([409, "JOB_INPUT_EXPIRED"]);
    }
    await setJob(id, "created_at", Date.now() - 30 * DAY_MS - 60_000);
    await sweepBulkRuns(env);
    expect(await jobById(database(env), id)).toBeUndefined();
    expect((await env.RESULTS.list({ prefix: `bulk/${id}/` })).objects).toHaveLength(0);
  });
});
