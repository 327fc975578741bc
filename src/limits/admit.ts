import type { Context } from "hono";
import type { LimitHit } from "../../durable-objects/account-object";
import { accountEntry } from "../engines/credits/credits";
import { rateLimited } from "../http/errors";
import { Admission, redeliveryHit } from "./admission";
import type { AppEnv } from "../types";

/**
 * Starts the request's admission once its key is known: its limits, and who it is should its hold outlive its Worker.
 */
export function expectAdmission(c: Context<AppEnv>, key: { id: string; accountId: string }, hits: LimitHit[]): void {
  const record = {
    requestId: c.var.requestId,
    accountId: key.accountId,
    keyId: key.id,
    method: c.req.method,
    path: c.req.path,
  };
  c.set("admission", new Admission(key.accountId, hits, record));
}

/**
 * Admits the request now, if its first call to the account's object has not already done so, counting `extra` limits
 * with its own (a route's limit, known once the input is valid; such a route defers its admission to this call). A
 * refusal is the HTTP route's 429 RATE_LIMITED.
 */
export async function admitRequest(c: Context<AppEnv>, ...extra: LimitHit[]): Promise<void> {
  const refusal = await admitPending(c.env, c.var.admission, ...extra);
  if (refusal) throw rateLimited(refusal.retryAfterSeconds, refusal.message);
}

/** A rate-limit refusal as a value, as every surface renders it its own way. */
export interface RateRefusal {
  code: "RATE_LIMITED";
  message: string;
  retryAfterSeconds: number;
}

/**
 * Counts `admission` now, with `extra` limits, unless its first call to the account's object already did (and nothing
 * is added): null when admitted, else the refusal.
 */
export async function admitPending(
  env: Env,
  admission: Admission | undefined,
  ...extra: LimitHit[]
): Promise<RateRefusal | null> {
  if (!admission || (!admission.pending && !extra.length)) return null;
  admission.add(...extra);
  const entered = await accountEntry(env, admission.accountId, admission).admit();
  return "limited" in entered ? { code: "RATE_LIMITED", ...entered.limited } : null;
}

/**
 * One webhook redelivery of `person` (a key's holder, the signed-in user, or a key with no holder as its own user),
 * counted with the request's own limits: the API's `POST .../webhook/redeliver` and the dashboard's button share this
 * one budget (10 a minute) in the account's object.
 */
export const admitRedelivery = (env: Env, admission: Admission, person: string) =>
  admitPending(env, admission, redeliveryHit(person));
