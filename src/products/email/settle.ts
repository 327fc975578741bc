import { ApiError } from "../../http/errors";
import { deliver } from "../../platform/webhooks";
import { deliveryConfig } from "../../routes/webhooks";
import { creditsOf } from "../../billing/credits";
import { DEFAULT_TIMEOUT_SECONDS, lookupForPayer } from "./service";

/**
 * Settling an unverified answer (spec, Verdicts and Events): when a lookup with `callback_url` answers unverified, it is
 * checked again 5 and 20 minutes later through the queue. An answered re-check bills like a fresh lookup and ends it;
 * the last one posts `email.settled` with `settled: false` if it still cannot say. A re-check the balance cannot pay
 * for is not run: the callback then carries `data: null` and `meta.stopped_reason: "insufficient_credits"`.
 */
export const RECHECK_DELAYS_S = [300, 900] as const;

export interface RecheckMessage {
  type: "recheck";
  /** The original lookup's request id: every callback names it. */
  requestId: string;
  accountId: string;
  keyId: string;
  dailyCreditCap: number | null;
  email: string;
  attempt: 1 | 2;
  callbackUrl: string;
  callbackSecret: string;
  timeoutSeconds: number;
}

export async function scheduleRecheck(env: Env, message: Omit<RecheckMessage, "type" | "attempt">, attempt: 1 | 2 = 1) {
  await env.JOBS.send({ type: "recheck", attempt, ...message } satisfies RecheckMessage, { delaySeconds: RECHECK_DELAYS_S[attempt - 1] });
}

export async function recheck(env: Env, m: RecheckMessage): Promise<void> {
  const payer = { accountId: m.accountId, keyId: m.keyId, dailyCreditCap: m.dailyCreditCap };
  const options = { refresh: true, maxAgeSeconds: null, timeoutSeconds: m.timeoutSeconds || DEFAULT_TIMEOUT_SECONDS, honorSuppressions: false, skipUncertainReuse: true };
  const last = m.attempt === RECHECK_DELAYS_S.length;
  let body: Record<string, unknown>;
  try {
    const run = await lookupForPayer({ env, payer, requestId: `${m.requestId}:recheck${m.attempt}`, operationId: `${m.requestId}:recheck${m.attempt}` }, [m.email], options);
    const { data, meta } = run.items[0]!;
    const settled = data.reason !== "unverified";
    if (!settled && !last) return scheduleRecheck(env, m, 2);
    const callbackMeta = { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit, fair_use_billed: meta.fair_use_billed };
    body = { event: "email.settled", request_id: m.requestId, settled, attempt: m.attempt, data, meta: callbackMeta };
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== "INSUFFICIENT_CREDITS" && err.code !== "KEY_SPEND_CAP_REACHED")) throw err;
    const remaining = (await creditsOf(env, m.accountId).snapshot()).available;
    const meta = { credits_used: 0, credits_remaining: remaining, cache_hit: false, fair_use_billed: false, stopped_reason: "insufficient_credits" };
    body = { event: "email.settled", request_id: m.requestId, settled: false, attempt: m.attempt, data: null, meta };
  }
  await deliver(m.callbackUrl, JSON.stringify(body), m.callbackSecret, deliveryConfig(env));
}
