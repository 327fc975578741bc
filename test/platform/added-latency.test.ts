import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { markAnswered, resetRoundTrips, roundTrips, runTraced } from "../../src/platform/trace";
import { tracedEnv } from "../../src/platform/traced-env";

/**
 * The development switch DEV_ADDED_LATENCY_MS (docs/operations.md#round-trips) delays Durable Object calls and D1
 * primary queries, never replica reads; the counters tell primary queries from session reads.
 */
const withLatency = (ms: string) => tracedEnv({ ...env, DEV_ADDED_LATENCY_MS: ms } as Env);

/**
 * The clock is faked (the added latency is a setTimeout), so what a call waits on it is read exactly, whatever the
 * machine's speed: `waitsFor` checks that the call has not settled with the clock 1 ms short of `ms` (given real
 * time for its I/O) and settles once it reaches `ms`; `waitsForNothing` that it settles with the clock standing still
 * (a wait on the clock would never end: a real-time guard of 10 s turns that into a failure that says so).
 */
async function onFakeClock(run: () => Promise<void>) {
  vi.useFakeTimers({ toFake: ["setTimeout"] });
  try {
    await run();
  } finally {
    vi.useRealTimers();
  }
}

async function waitsFor(ms: number, work: () => Promise<unknown>) {
  await onFakeClock(async () => {
    let settled = false;
    const done = work().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(ms - 1);
    // Real time for the call's I/O: were it not held back by the clock, it would settle now.
    await Promise.race([done, scheduler.wait(200)]);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await done;
  });
}

async function waitsForNothing(work: () => Promise<unknown>) {
  await onFakeClock(async () => {
    const guard = scheduler.wait(10_000).then(() => "waited on the clock");
    expect(await Promise.race([work().then(() => "settled"), guard])).toBe("settled");
  });
}

async function traced(work: () => Promise<void>) {
  resetRoundTrips();
  await runTraced(async () => {
    await work();
    markAnswered("GET", "/latency-test");
  });
  const route = roundTrips().routes.find((r) => r.route === "GET /latency-test")!;
  return { ...route.before_answer, writes: route.d1_primary_writes.before_answer };
}

describe("DEV_ADDED_LATENCY_MS", () => {
  it("adds the latency to every D1 primary query and Durable Object call", async () => {
    const slow = withLatency("60");
    await waitsFor(60, () => slow.DB.prepare("SELECT 1").first());
    await waitsFor(60, () => slow.DB.batch([slow.DB.prepare("SELECT 1"), slow.DB.prepare("SELECT 2")]));
    const stub = slow.ACCOUNTS.get(slow.ACCOUNTS.idFromName("acct_latency"));
    await waitsFor(60, () => stub.balance(null));
  });

  it("leaves replica reads alone, and adds nothing at 0", async () => {
    const slow = withLatency("200");
    const session = slow.DB.withSession("first-unconstrained");
    await waitsForNothing(() => session.prepare("SELECT 1").first());
    const plain = withLatency("0");
    await waitsForNothing(() => plain.DB.prepare("SELECT 1").first());
  });

  it(
    "counts session reads as d1_replica, writes and plain queries as d1_primary, and the primary's writes " + "apart",
    async () => {
      const db = withLatency("0").DB;
      const counts = await traced(async () => {
        const session = db.withSession("first-unconstrained");
        await session.prepare("SELECT 1").first();
        await session.prepare("  with x as (select 1) select * from x").all();
        await session.batch([session.prepare("SELECT 1"), session.prepare("SELECT 2")]);
        await session.prepare("UPDATE settings SET value = value WHERE 0").run();
        await session.batch([session.prepare("SELECT 1"), session.prepare("DELETE FROM settings WHERE 0")]);
        await db.prepare("SELECT 1").first();
      });
      expect(counts.d1_replica).toEqual({ mean: 3, max: 3 });
      expect(counts.d1_primary).toEqual({ mean: 3, max: 3 });
      // The UPDATE and the batch holding a DELETE write; the plain SELECT on the primary does not.
      expect(counts.writes).toEqual({ mean: 2, max: 2 });
    },
  );
});
