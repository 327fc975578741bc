import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { markAnswered, resetRoundTrips, roundTrips, runTraced } from "../../src/platform/trace";
import { tracedEnv } from "../../src/platform/traced-env";

/**
 * The development switch DEV_ADDED_LATENCY_MS (docs/operations.md#round-trips) delays Durable Object calls and D1
 * primary queries, never replica reads; the counters tell primary queries from session reads.
 */
const withLatency = (ms: string) => tracedEnv({ ...env, DEV_ADDED_LATENCY_MS: ms } as Env);

/**
 * Timed on the real clock: a call that waits `ms` on a timer cannot settle sooner, so `waitsFor` asserts a lower bound
 * that no machine's speed can break, and `waitsForNothing` gives the switch a latency of 5 s that a query on the
 * slowest machine stays far below. The clock is not faked: the test files of a worker share one runtime, and a faked
 * setTimeout would also catch the timers of other files' background work (a request log's flush, a webhook's retry)
 * and fire them from this test's context, which workerd refuses as I/O on behalf of a different context.
 */
async function elapsedMs(work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await work();
  return Date.now() - started;
}

async function waitsFor(ms: number, work: () => Promise<unknown>) {
  expect(await elapsedMs(work)).toBeGreaterThanOrEqual(ms);
}

async function waitsForNothing(work: () => Promise<unknown>) {
  expect(await elapsedMs(work)).toBeLessThan(NOTHING_LATENCY_MS);
}

const NOTHING_LATENCY_MS = 5_000;

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
    const slow = withLatency("300");
    await waitsFor(300, () => slow.DB.prepare("SELECT 1").first());
    await waitsFor(300, () => slow.DB.batch([slow.DB.prepare("SELECT 1"), slow.DB.prepare("SELECT 2")]));
    const stub = slow.ACCOUNTS.get(slow.ACCOUNTS.idFromName("acct_latency"));
    await waitsFor(300, () => stub.balance(null));
  });

  it("leaves replica reads alone, and adds nothing at 0", async () => {
    const slow = withLatency(String(NOTHING_LATENCY_MS));
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
