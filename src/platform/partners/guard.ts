/**
 * Every partner call goes through here (docs/partners.md, "Operational rules"): a per-call timeout inside the lookup's
 * budget, retries after a rate limit's `Retry-After` when the wait fits, and a circuit breaker per partner that stops
 * calling a failing one for a while. State is per Worker instance: a breaker is a local judgement, never shared I/O.
 */

/** Why a call failed; `rate_limited` carries the partner's requested wait. */
export class PartnerError extends Error {
  constructor(
    readonly kind: "rate_limited" | "error" | "auth" | "malformed",
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export interface PartnerSettings {
  timeoutMs: number;
  breakerMs: number;
  /** Consecutive failures that open the breaker. */
  threshold: number;
  maxRetries: number;
}

/** One lookup's allowance of partner time: calls that would start after `deadline` are not made. */
export interface Budget {
  deadline: number;
}

interface Breaker {
  failures: number;
  openUntil: number;
  /** A rate limit asked every caller of this instance to wait until then. */
  pausedUntil: number;
}

const breakers = new Map<string, Breaker>();

const stateOf = (partner: string) => {
  let state = breakers.get(partner);
  if (!state) breakers.set(partner, (state = { failures: 0, openUntil: 0, pausedUntil: 0 }));
  return state;
};

/**
 * Forgets every breaker. Only tests call it (knip's `@internal`): the breakers are per isolate, and the test files
 * sharing one runtime start each case from closed breakers rather than wait out a pause another file left open.
 * @internal
 */
export const resetBreakers = () => breakers.clear();

const numberVar = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value && Number.isFinite(n) && n >= 0 ? n : fallback;
};

export function partnerSettings(env: Env): PartnerSettings {
  const vars = env as unknown as Record<string, string | undefined>;
  return {
    timeoutMs: numberVar(vars.PARTNER_TIMEOUT_MS, 3_000),
    breakerMs: numberVar(vars.PARTNER_BREAKER_MS, 30_000),
    threshold: 5,
    maxRetries: 2,
  };
}

export function budgetFor(env: Env, now = Date.now()): Budget {
  const vars = env as unknown as Record<string, string | undefined>;
  return { deadline: now + numberVar(vars.PARTNER_BUDGET_MS, 10_000) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function failed(partner: string, settings: PartnerSettings, now: number) {
  const state = stateOf(partner);
  state.failures += 1;
  if (state.failures >= settings.threshold) state.openUntil = now + settings.breakerMs;
}

/**
 * Runs `call` with the timeout and the retries; null when the partner did not answer (the caller answers unchecked).
 * An open breaker or a spent budget makes no call at all.
 */
export async function guarded<T>(
  partner: string,
  settings: PartnerSettings,
  budget: Budget,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T | null> {
  const state = stateOf(partner);
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    if (state.openUntil > now) return null;
    if (state.pausedUntil > now) {
      if (state.pausedUntil >= budget.deadline) return null;
      await sleep(state.pausedUntil - now);
    }
    const left = budget.deadline - Date.now();
    if (left <= 0) return null;
    try {
      const result = await call(AbortSignal.timeout(Math.min(settings.timeoutMs, left)));
      state.failures = 0;
      state.openUntil = 0;
      return result;
    } catch (err) {
      const limited = err instanceof PartnerError && err.kind === "rate_limited";
      if (limited) {
        const wait = err.retryAfterMs ?? 1_000;
        state.pausedUntil = Math.max(state.pausedUntil, Date.now() + wait);
        if (attempt < settings.maxRetries && Date.now() + wait < budget.deadline) continue;
      }
      failed(partner, settings, Date.now());
      console.log(
        JSON.stringify({
          partner,
          failure: err instanceof PartnerError ? err.kind : "timeout_or_network",
          message: String((err as Error).message ?? err),
        }),
      );
      return null;
    }
  }
}

/** Seconds (or an HTTP date) of a `Retry-After` header, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1_000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Runs `work` over `items` with at most `limit` in flight, keeping order. */
export async function inPool<I, O>(items: I[], limit: number, work: (item: I) => Promise<O>): Promise<O[]> {
  const out = new Array<O>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
