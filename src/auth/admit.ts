import type { Context } from "hono";
import type { LimitHit } from "../../durable-objects/account-credits";
import { accountEntry } from "../engines/credits/credits";
import { Admission } from "../limits/admission";
import type { AppEnv } from "../types";

/**
 * Admits the request now, if its first call to the account's object has not already done so, counting `extra` limits
 * with its own (a route's limit, known once the input is valid). A refusal throws 429 RATE_LIMITED.
 */
export async function admitRequest(c: Context<AppEnv>, ...extra: LimitHit[]): Promise<void> {
  const admission = c.var.admission;
  if (!admission || (!admission.pending && !extra.length)) return;
  // Admitted already (a route that called the object first): the extra limits take a call of their own.
  const counting = admission.pending ? admission : new Admission(admission.accountId, [], admission.record);
  counting.add(...extra);
  if (counting.pending) await accountEntry(c.env, admission.accountId, counting).admit();
}
