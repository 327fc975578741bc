import type { Context } from "hono";
import { secretKey, type SecretKeyOptions } from "../auth/secret-key";
import { deferPastAnswer } from "../http/trace-answer";
import { WALK_REFUSALS } from "../lookups/refusal";
import type { LookupCaller } from "../lookups/service";
import type { AppEnv } from "../types";

/** The errors a paid walk answers with when it refuses the first value (documented on every lookup route). */
export const LOOKUP_ERRORS = WALK_REFUSALS;

/** The caller of a request whose key was checked: the lookup service's principal, admission and request id. */
export function callerOf(c: Context<AppEnv>): LookupCaller {
  const principal = c.var.principal;
  if (!principal) throw new Error("a lookup route runs after its key check");
  return {
    env: c.env,
    principal,
    requestId: c.var.requestId,
    ...(c.var.admission ? { admission: c.var.admission } : {}),
    defer: (work) => deferPastAnswer(c, work),
  };
}

/**
 * Secret-key auth for a lookup route: the walk's first call to the account's object (its hold, or its balance read when
 * every answer is free) counts the key's rate limit, so a lookup makes one round trip to that object before its work.
 */
export const lookupKey = (options: Omit<SecretKeyOptions, "admitOnFirstCall">) =>
  secretKey({ ...options, admitOnFirstCall: true });
