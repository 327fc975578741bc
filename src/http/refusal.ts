import type { StopReason } from "../engines/credits/credits";
import { refusalOf, type Refusal } from "../lookups/service";
import { ApiError } from "./errors";

/**
 * A lookup's refusal as the HTTP error the spec gives it (429 with `Retry-After` for limits and the daily cap, 402,
 * 403).
 */
export function refusalApiError(refusal: Refusal): ApiError {
  const headers =
    refusal.retryAfterSeconds === undefined ? undefined : { "Retry-After": String(refusal.retryAfterSeconds) };
  return new ApiError(refusal.code, refusal.message, headers ? { headers } : {});
}

/**
 * The walk's refusal of the first value, as the HTTP error the spec gives it: 429 for the key's daily cap, else 402.
 */
export const refusalError = (reason: StopReason, now = Date.now()): ApiError => refusalApiError(refusalOf(reason, now));

/** Throws when the walk refused to start; otherwise hands the run back. */
export function orRefuse<T extends { refused: StopReason | null }>(run: T): T {
  if (run.refused) throw refusalError(run.refused);
  return run;
}
