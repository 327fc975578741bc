import type { Context } from "hono";
import { secretKey, type SecretKeyOptions } from "../auth/secret-key";
import { payerOf } from "../engines/credits/payer";
import type { Product, WalkOptions } from "../engines/product";
import { walk } from "../engines/walk/walk";
import { orRefuse } from "../http/refusal";
import type { AppEnv } from "../types";

/** The errors a paid walk answers with when it refuses the first value (documented on every lookup route). */
export const LOOKUP_ERRORS = ["INSUFFICIENT_CREDITS", "KEY_SPEND_CAP_REACHED"] as const;

/**
 * The paid walk for this request's payer, as every lookup route runs it: a refused first value becomes 402 or 429, and
 * what it charged is recorded for the request log.
 */
export async function paidWalk<In, Out>(c: Context<AppEnv>, product: Product<In, Out>, inputs: In[], options: WalkOptions) {
  const run = orRefuse(await walk(product, { env: c.env, payer: payerOf(c.var.principal, c.var.admission), requestId: c.var.requestId, inputs, options }));
  c.set("creditsUsed", (c.var.creditsUsed ?? 0) + run.creditsUsed);
  return run;
}

/**
 * Secret-key auth for a lookup route: the walk's first call to the account's object (its hold, or its balance read when
 * every answer is free) counts the key's rate limit, so a lookup makes one round trip to that object before its work.
 */
export const lookupKey = (options: Omit<SecretKeyOptions, "admitOnFirstCall">) => secretKey({ ...options, admitOnFirstCall: true });
