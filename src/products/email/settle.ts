import { accountObject } from "../../engines/credits/credits";
import type { WalkProduct } from "../../engines/product";
import { walk } from "../../engines/walk/walk";
import { enqueueDelivery } from "../../engines/webhooks/outbox";
import type { EmailResult } from "./result";
import { cannedAnswer } from "./test-addresses";

/**
 * Settling an unverified answer (spec, Verdicts and Events): when a lookup with `callback_url` answers unverified, it
 * is checked again 5 and 20 minutes later through the queue. An answered re-check bills like a fresh lookup and ends
 * it; the last one posts `email.settled` with `settled: false` if it still cannot say. A re-check the balance cannot
 * pay for is not run: the callback then carries `data: null` and `meta.stopped_reason: "insufficient_credits"`.
 */
export const RECHECK_DELAYS_S = [300, 900] as const;

/** The two delays, from `RECHECK_DELAYS_S` ("300,900"; tests shorten it) or the spec's defaults. */
export function recheckDelays(env: Env): readonly [number, number] {
  const [first, second] = (env.RECHECK_DELAYS_S ?? "").split(",").map((part) => Number(part.trim()));
  const valid = (n: number | undefined): n is number => Number.isInteger(n) && n! >= 0;
  return valid(first) && valid(second) ? [first, second] : RECHECK_DELAYS_S;
}

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
  /** The lookup's `timeout` (seconds), or null for the default. */
  timeout: number | null;
}

/**
 * Queues a re-check. A lookup answered `blocked` skips the 5-minute one: the sidecar asks nothing of a server that
 * refused the prober for 10 minutes (workers/smtp-sidecar/mx-pacing.mjs `backoffMs`), so that re-check could not
 * succeed; its only re-check is the 20-minute one (both delays added), after the back-off.
 */
export async function scheduleRecheck(
  env: Env,
  message: Omit<RecheckMessage, "type" | "attempt">,
  options: { attempt?: 1 | 2; blocked?: boolean } = {},
) {
  const [first, second] = recheckDelays(env);
  const attempt = options.blocked ? 2 : (options.attempt ?? 1);
  // The attempt goes last: `message` may be the previous re-check's own message, with its own attempt.
  const next: RecheckMessage = { ...message, type: "recheck", attempt };
  const delaySeconds = options.blocked ? first + second : attempt === 1 ? first : second;
  await env.JOBS.send(next, { delaySeconds });
}

/** The `email.settled` body; test deliveries (`settledSample`) are built by it too. */
function settledEvent(
  check: { requestId: string; attempt: number },
  settled: boolean,
  data: EmailResult | null,
  meta: Record<string, unknown>,
) {
  return { event: "email.settled", request_id: check.requestId, attempt: check.attempt, settled, data, meta };
}

/** The email product the re-check walks, handed in by it (its module imports this one). */
type Email = WalkProduct<string, EmailResult>;

async function settledBody(env: Env, email: Email, m: RecheckMessage): Promise<Record<string, unknown> | null> {
  const payer = { accountId: m.accountId, keyId: m.keyId, dailyCreditCap: m.dailyCreditCap };
  const options = {
    refresh: true,
    maxAgeSeconds: null,
    honorSuppressions: false,
    extra: { timeout: m.timeout, skipUncertainReuse: true },
  };
  const operationId = `${m.requestId}:recheck${m.attempt}`;
  const run = await walk(email, { env, payer, requestId: operationId, operationId, inputs: [m.email], options });
  if (run.refused) {
    const remaining = (await accountObject(env, m.accountId).snapshot()).available;
    const meta = {
      credits_used: 0,
      credits_remaining: remaining,
      cache_hit: false,
      fair_use_billed: false,
      stopped_reason: "insufficient_credits",
    };
    return settledEvent(m, false, null, meta);
  }
  const { data, meta } = run.items[0]!;
  const settled = data.reason !== "unverified";
  if (!settled && m.attempt < RECHECK_DELAYS_S.length) return null;
  const callbackMeta = {
    credits_used: meta.credits_used,
    credits_remaining: run.creditsRemaining,
    cache_hit: meta.cache_hit,
    fair_use_billed: meta.fair_use_billed,
  };
  return settledEvent(m, settled, data, callbackMeta);
}

/**
 * The sample `email.settled` of a test delivery: the canned answer of deliverable@service.test, settled at attempt 1.
 */
export function settledSample(): string {
  const data = cannedAnswer("deliverable", "service.test", "deliverable@service.test");
  const meta = { credits_used: 0, credits_remaining: 0, cache_hit: false, fair_use_billed: false };
  return JSON.stringify(settledEvent({ requestId: "req_test", attempt: 1 }, true, data, meta));
}

/** One re-check: settles and calls back, or schedules the next re-check while there is one. */
export async function recheck(env: Env, email: Email, m: RecheckMessage): Promise<void> {
  const body = await settledBody(env, email, m);
  if (!body) return scheduleRecheck(env, m, { attempt: 2 });
  await enqueueDelivery(env, {
    owner: "callback",
    ownerId: m.requestId,
    event: "email.settled",
    url: m.callbackUrl,
    secret: m.callbackSecret,
    body: JSON.stringify(body),
  });
}
