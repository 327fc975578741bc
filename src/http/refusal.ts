import type { StopReason } from "../engines/credits/credits";
import { ApiError } from "./errors";

/** The walk's refusal of the first value, as the HTTP error the spec gives it: 429 for the key's daily cap, else 402. */
export function refusalError(reason: StopReason): ApiError {
  return reason === "key_spend_cap"
    ? new ApiError("KEY_SPEND_CAP_REACHED", "This key has reached its daily credit cap; it resets at 00:00 UTC.")
    : new ApiError("INSUFFICIENT_CREDITS", "The balance is empty; the lookup did not run.");
}

/** Throws when the walk refused to start; otherwise hands the run back. */
export function orRefuse<T extends { refused: StopReason | null }>(run: T): T {
  if (run.refused) throw refusalError(run.refused);
  return run;
}
