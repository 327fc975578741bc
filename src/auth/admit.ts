import type { Context } from "hono";
import type { LimitHit } from "../../durable-objects/account-credits";
import { accountEntry } from "../engines/credits/credits";
import { Admission } from "../limits/admission";
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
 * refusal throws 429 RATE_LIMITED.
 */
export async function admitRequest(c: Context<AppEnv>, ...extra: LimitHit[]): Promise<void> {
  const admission = c.var.admission;
  if (!admission || (!admission.pending && !extra.length)) return;
  admission.add(...extra);
  await accountEntry(c.env, admission.accountId, admission).admit();
}
