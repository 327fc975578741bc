import type { StopReason } from "../engines/credits/credits";
import type { WalkProduct } from "../engines/product";
import type { Principal } from "../types";

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

/**
 * The refusal a principal meets before anything is read for it: a secret key without the product's scope, the sandbox
 * key with a value that is not a documented sample. Null when the lookup (or its quote) may go on.
 */
export function keyRefusal<In, Out>(
  principal: Principal,
  product: WalkProduct<In, Out>,
  inputs: readonly In[],
): Refusal | null {
  if (principal.kind === "secret" && !principal.scopes.includes(product.scope))
    return { code: "KEY_SCOPE_DENIED", message: `The key's scopes do not include \`${product.scope}\`.` };
  if (principal.kind === "sandbox" && !inputs.every((input) => product.isSample(input)))
    return { code: "SANDBOX_VALUE_NOT_ALLOWED", message: "The sandbox key only answers the documented sample values." };
  return null;
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
