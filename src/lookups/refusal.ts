import type { StopReason } from "../engines/credits/credits";

/**
 * Why a lookup did not run, as a value every surface renders its own way (HTTP: the spec's error envelope and status;
 * the tool protocol: a tool error carrying `code`). Nothing was held or charged.
 */
export interface Refusal {
  code:
    | "KEY_SCOPE_DENIED"
    | "SANDBOX_VALUE_NOT_ALLOWED"
    | "RATE_LIMITED"
    | "INSUFFICIENT_CREDITS"
    | "KEY_SPEND_CAP_REACHED";
  message: string;
  /** When asking again can succeed (rate limits; the daily cap resets at 00:00 UTC). */
  retryAfterSeconds?: number;
}

/** The error codes a lookup's walk may refuse with, beyond its key check (documented on every lookup). */
export const WALK_REFUSALS = ["INSUFFICIENT_CREDITS", "KEY_SPEND_CAP_REACHED"] as const;

/** The walk's refusal of the first value: the key's daily cap (until 00:00 UTC), else an empty balance. */
export function refusalOf(reason: StopReason, now = Date.now()): Refusal {
  return reason === "key_spend_cap"
    ? {
        code: "KEY_SPEND_CAP_REACHED",
        message: "This key has reached its daily credit cap; it resets at 00:00 UTC.",
        retryAfterSeconds: secondsToUtcMidnight(now),
      }
    : { code: "INSUFFICIENT_CREDITS", message: "The balance is empty; the lookup did not run." };
}

/** Whole seconds until the next 00:00 UTC, when daily caps reset (at least 1). */
export const secondsToUtcMidnight = (now: number) =>
  Math.max(1, Math.ceil((new Date(now).setUTCHours(24, 0, 0, 0) - now) / 1000));
