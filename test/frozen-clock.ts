import { vi } from "vitest";

/**
 * Stops `Date` for the test and for the Worker it calls (one isolate runs both, the account's object included), so a
 * rate limit counts the requests at one instant: nothing refills however slowly a loaded machine runs them. The
 * limiter's rule at instants apart is tested in test/limits/limits.test.ts. Timers still run; undo with `thaw`.
 *
 * The worker project shares one runtime between files, and earlier files' background work (request-log flushes, queue
 * consumers, settling) runs on under this clock: only `Date` is faked, never timers (a faked setTimeout fired other
 * files' timers from this test's context), and the clock stops at real time, never ahead of it (a stamp taken ahead, a
 * cache entry's expiry or a breaker, would outlast real time once thawed). Their deadline waits sleep on real timers,
 * so a stopped clock only makes them look again until the thaw.
 */
export function freezeClock(): { thaw: () => void } {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now());
  return { thaw: () => vi.useRealTimers() };
}
