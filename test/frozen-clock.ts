import { vi } from "vitest";

/**
 * Stops `Date` for the test and for the Worker it calls (one isolate runs both, the account's object included), so a
 * rate limit counts the requests at one instant: nothing refills however slowly a loaded machine runs them. The
 * limiter's rule at instants apart is tested in test/limits/limits.test.ts. Timers still run; undo with `thaw`.
 */
export function freezeClock(): { thaw: () => void } {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now());
  return { thaw: () => vi.useRealTimers() };
}
