import type { StopReason } from "../engines/credits/credits";
import { ApiError } from "./errors";

/** The walk's refusal of the first value, as the HTTP error the spec gives it: 429 for the key's daily cap, else 402. */
export function refusalError(reason: StopReason, now = Date.now()): ApiError {
  return reason === "key_spend_cap"
    ? new ApiError("KEY_SPEND_CAP_REACHED", "This key has reached its daily credit cap; it resets at 00:00 UTC.", {
        headers: { "Retry-After": String(secondsToUtcMidnight(now)) },
      })
    : new ApiError("INSUFFICIENT_CREDITS", "The balance is empty; the lookup did not run.");
}

/** Whole seconds until the next 00:00 UTC, when daily caps reset (at least 1). */
export const secondsToUtcMidnight = (now: number) => Math.max(1, Math.ceil((new Date(now).setUTCHours(24, 0, 0, 0) - now) / 1000));

/** Throws when the walk refused to start; otherwise hands the run back. */
export function orRefuse<T extends { refused: StopReason | null }>(run: T): T {
  if (run.refused) throw refusalError(run.refused);
  return run;
}
