/** How the widget reaches the API: one POST per lookup, answers remembered per value, silence on any failure. */

export interface LookupConfig {
  /** Origin of the API, e.g. https://api.example.com. */
  api: string;
  /** The publishable key (`pk_...`). */
  key: string;
  /** Milliseconds before a lookup is given up. */
  timeout: number;
  /** Returns a fresh single-use bot-challenge token, for keys that carry a challenge pair. */
  challenge: (() => string | Promise<string>) | null;
}

/** `data` of a 200 answer, or null when there is nothing to show (unreachable, refused, rate-limited, aborted). */
export type Lookup = (product: string, fields: Record<string, string>, signal: AbortSignal) => Promise<unknown>;

/** Codes that will not change within this page view: stop asking and tell the site's developer once. */
const SETUP_ERRORS = new Set([
  "INVALID_PUBLISHABLE_KEY",
  "ORIGIN_NOT_ALLOWED",
  "KEY_ACCOUNT_MISMATCH",
  "INSUFFICIENT_CREDITS",
]);

export function createLookup(config: LookupConfig): Lookup {
  const answers = new Map<string, unknown>();
  let pausedUntil = 0;

  const pause = (response: Response) => {
    const seconds = Number(response.headers.get("Retry-After"));
    pausedUntil = Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000;
  };

  return async (product, fields, signal) => {
    const cacheKey = `${product} ${JSON.stringify(fields)}`;
    if (answers.has(cacheKey)) return answers.get(cacheKey);
    if (Date.now() < pausedUntil) return null;
    const timer = new AbortController();
    const abort = () => timer.abort();
    signal.addEventListener("abort", abort);
    const timeout = setTimeout(abort, config.timeout);
    try {
      const challenge_token = config.challenge ? await config.challenge() : undefined;
      const response = await fetch(`${config.api}/api/v1/${product}/public`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ key: config.key, ...fields, challenge_token }),
        credentials: "omit",
        signal: timer.signal,
      });
      if (response.status === 429) pause(response);
      const body = (await response.json()) as { data?: unknown; error?: { code: string; request_id: string } };
      if (response.ok) {
        answers.set(cacheKey, body.data);
        return body.data;
      }
      if (body.error && SETUP_ERRORS.has(body.error.code)) {
        pausedUntil = Infinity;
        console.warn(
          `[verify] ${body.error.code} (request ${body.error.request_id}): lookups are off for this page view.`,
        );
      }
    } catch {
      // Unreachable, timed out, aborted or not JSON: the form carries on as if the widget were not there.
    } finally {
      clearTimeout(timeout);
      signal.removeEventListener("abort", abort);
    }
    return null;
  };
}
