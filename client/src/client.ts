import { ApiError, errorFrom } from "./errors.js";
import type { AnswerOf, Method, OptionsArg, Operation, PathsWith, RequestOptions } from "./types.js";

export interface ClientOptions {
  /** Where the API is, e.g. `https://api.example.com` (paths carry `/api/v1`). */
  baseUrl: string;
  /** A secret key (`sk_live_...`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Retries of one call; default 3. */
  maxRetries?: number;
  /** First backoff step when the API gives no `Retry-After`; doubled each retry. Default 500 ms. */
  backoffMs?: number;
  /** The longest wait accepted: a `Retry-After` beyond it (a daily cap) fails at once. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (retry: { attempt: number; delayMs: number; error: unknown }) => void;
  fetch?: typeof fetch;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

function urlOf(baseUrl: string, path: string, options: { path?: unknown; query?: unknown }) {
  const params = (options.path ?? {}) as Record<string, string | number>;
  const filled = path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (params[name] === undefined) throw new TypeError(`Missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(params[name]));
  });
  const url = new URL(filled, baseUrl);
  for (const [name, value] of Object.entries((options.query ?? {}) as Record<string, unknown>)) {
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  return url;
}

/**
 * A typed client for the API: `client.post("/api/v1/email", { body: { email } })` resolves to `{data, meta,
 * requestId}` or throws ApiError (with `requestId`). A 429 is retried after its `Retry-After` (or an exponential
 * backoff with jitter when there is none); GET calls are also retried after a network error or a 5xx. Other calls are
 * never repeated after they may have run, since a repeated lookup could be billed again.
 */
export function createClient(options: ClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const maxRetries = options.maxRetries ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;

  /** Milliseconds to wait before retry `attempt` (1-based), or null when this failure is not worth another try. */
  function retryDelay(method: Method, attempt: number, error: unknown): number | null {
    if (attempt > maxRetries) return null;
    const backoff = backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
    if (!(error instanceof ApiError)) return method === "get" ? backoff : null; // network error
    if (error.status === 429 && error.code !== "KEY_SPEND_CAP_REACHED") {
      const asked = (error.retryAfterSeconds ?? 0) * 1000;
      return asked > maxRetryDelayMs ? null : Math.max(asked, backoff);
    }
    return method === "get" && error.status >= 500 ? backoff : null;
  }

  async function attempt(method: Method, path: string, request: RequestOptions<unknown>) {
    const headers: Record<string, string> = { Accept: "application/json", ...request.headers };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await doFetch(urlOf(options.baseUrl, path, request), {
      method: method.toUpperCase(),
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: request.signal,
    });
    if (!response.ok) throw await errorFrom(response);
    const requestId = response.headers.get("X-Request-Id");
    if (!(response.headers.get("Content-Type") ?? "").includes("json")) {
      return { data: await response.text(), meta: undefined, status: response.status, requestId };
    }
    const envelope = (await response.json()) as { data?: unknown; meta?: unknown };
    return { data: envelope.data, meta: envelope.meta, status: response.status, requestId };
  }

  async function request(method: Method, path: string, request: RequestOptions<unknown> = {}) {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt(method, path, request);
      } catch (error) {
        if (request.signal?.aborted) throw error;
        const delayMs = retryDelay(method, tries, error);
        if (delayMs === null) throw error;
        options.onRetry?.({ attempt: tries, delayMs, error });
        await sleep(delayMs, request.signal);
      }
    }
  }

  const verb =
    <M extends Method>(method: M) =>
    <P extends PathsWith<M>>(path: P, ...[opts]: OptionsArg<Operation<P, M>>): Promise<AnswerOf<Operation<P, M>>> =>
      request(method, path, opts as RequestOptions<unknown>) as Promise<AnswerOf<Operation<P, M>>>;

  return { get: verb("get"), post: verb("post"), put: verb("put"), patch: verb("patch"), delete: verb("delete") };
}

export type Client = ReturnType<typeof createClient>;
