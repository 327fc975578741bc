import type { Context } from "hono";
import type { Settlement } from "../../durable-objects/account-credits";
import { ApiError } from "../http/errors";
import type { AppEnv } from "../types";

/** The account's credits Durable Object: the only place a balance is read or written. */
export const creditsOf = (env: Env, accountId: string) => env.CREDITS.get(env.CREDITS.idFromName(accountId));

export interface Priced<T> extends Omit<Settlement, "now"> {
  result: T;
}

/**
 * Reserve, work, settle: credits are held before the work starts and the answer's real cost (0 or more, at most what
 * was granted) is charged after it; if the work throws, the hold is released and nothing is charged.
 * Refusals: 429 KEY_SPEND_CAP_REACHED when the key's daily cap is spent, else 402 INSUFFICIENT_CREDITS.
 */
export async function withCredits<T>(
  c: Context<AppEnv>,
  want: { amount: number; minimum?: number },
  work: (granted: number) => Promise<Priced<T>>,
): Promise<{ result: T; charged: number; remaining: number }> {
  const principal = c.var.principal;
  if (!principal || principal.kind === "sandbox") {
    const { result } = await work(want.amount);
    return { result, charged: 0, remaining: 0 };
  }
  const credits = creditsOf(c.env, principal.accountId);
  const reservation = await credits.reserve({
    requestId: c.var.requestId,
    amount: want.amount,
    ...(want.minimum !== undefined ? { minimum: want.minimum } : {}),
    keyId: principal.keyId,
    dailyCreditCap: principal.dailyCreditCap,
  });
  if (!reservation.ok) {
    throw reservation.reason === "key_spend_cap"
      ? new ApiError("KEY_SPEND_CAP_REACHED", "This key has reached its daily credit cap; it resets at 00:00 UTC.")
      : new ApiError("INSUFFICIENT_CREDITS", "The balance is empty; the lookup did not run.");
  }
  let priced: Priced<T>;
  try {
    priced = await work(reservation.granted);
  } catch (err) {
    await credits.release(reservation.reservationId);
    throw err;
  }
  const { result, ...settlement } = priced;
  const { charged, remaining } = await credits.settle(reservation.reservationId, settlement);
  c.set("creditsUsed", (c.var.creditsUsed ?? 0) + charged);
  return { result, charged, remaining };
}
