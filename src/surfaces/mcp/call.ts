import type { Context, Hono } from "hono";
import { secretPrincipal } from "../../auth/principal";
import { ERROR_STATUS, type ErrorCode } from "../../http/errors";
import { logRequest } from "../../http/request-log";
import { deferPastAnswer } from "../../http/trace-answer";
import type { LookupCaller } from "../../lookups/service";
import { registeredProducts } from "../../products/registry";
import type { DeclaredOutcome } from "../declared-lookup";
import type { AppEnv } from "../../types";

/**
 * What a tool call needs of the /mcp request: its checked key, pending rate limit and request id (`c`). Lookup tools
 * call the lookup service directly with them (./lookup-tools.ts, through src/surfaces/declared-lookup.ts), as the
 * REST routes do. The account, bulk and monitor tools still forward to the API in-process (`callApi`, `app`), as the
 * HTTP request the API documents, until those engines offer functions a surface can call.
 */
export interface Caller {
  c: Context<AppEnv>;
  app: () => Hono<AppEnv>;
}

export interface ApiCall {
  method: "GET" | "POST";
  /** Under /api/v1, path parameters filled in. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface ApiFailure {
  code: string;
  message: string;
  request_id: string;
  errors?: Record<string, string[]>;
  /** From a 429's Retry-After, so an agent knows when to try again. */
  retry_after_seconds?: number;
}

export type ApiAnswer =
  | { ok: true; data: Record<string, unknown>; meta: Record<string, unknown> }
  | { ok: false; status: number; error: ApiFailure };

type Envelope =
  | { success: true; data: Record<string, unknown>; meta?: Record<string, unknown> }
  | { success: false; error: ApiFailure };

/**
 * One API call as HTTP makes it (the account, bulk and monitor tools); a CSV answer (bulk results) comes back as
 * `data.csv`.
 */
export async function callApi(caller: Caller, call: ApiCall): Promise<ApiAnswer> {
  const { c } = caller;
  const url = new URL(`/api/v1${call.path}`, c.req.url);
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  const headers = new Headers({ Authorization: c.req.header("Authorization") ?? "", Accept: "application/json" });
  const source = c.req.header("CF-Connecting-IP");
  if (source) headers.set("CF-Connecting-IP", source);
  if (call.body !== undefined) headers.set("Content-Type", "application/json");
  const request = new Request(url, {
    method: call.method,
    headers,
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  // The API request counts the key's rate limit itself; the /mcp request carrying this call then does not count again.
  c.set("admission", undefined);
  const response = await caller.app().fetch(request, c.env, c.executionCtx);
  if (!(response.headers.get("Content-Type") ?? "").includes("application/json")) {
    const text = await response.text();
    const requestId = response.headers.get("X-Request-Id") ?? "";
    if (response.ok) return { ok: true, data: { csv: text }, meta: { request_id: requestId } };
    return {
      ok: false,
      status: response.status,
      error: { code: "SERVER_ERROR", message: text.slice(0, 200), request_id: requestId },
    };
  }
  const envelope = (await response.json()) as Envelope;
  if (envelope.success) return { ok: true, data: envelope.data, meta: envelope.meta ?? {} };
  const retryAfter = Number(response.headers.get("Retry-After"));
  return {
    ok: false,
    status: response.status,
    error: { ...envelope.error, ...(retryAfter > 0 ? { retry_after_seconds: retryAfter } : {}) },
  };
}

/** The lookup service's caller for one tool call: the /mcp request's key and pending rate limit, the call's own id. */
export function lookupCallerOf(caller: Caller, requestId: string): LookupCaller {
  const { c } = caller;
  return {
    env: c.env,
    principal: secretPrincipal(c),
    requestId,
    ...(c.var.admission ? { admission: c.var.admission } : {}),
    defer: (work) => deferPastAnswer(c, work),
  };
}

const calls = new WeakMap<object, number>();

/**
 * A tool call's own request id, derived from the /mcp request's (`req_..._t1`, `_t2`, ... in a batch): the id its
 * ledger rows, history and request record carry, apart from every other call of the same request.
 */
export function toolCallId(caller: Caller): string {
  const n = (calls.get(caller.c) ?? 0) + 1;
  calls.set(caller.c, n);
  return `${caller.c.var.requestId}_t${n}`;
}

/**
 * The request record of a tool call that ran a lookup (GET /account/requests/{id}), under the API path it stands for,
 * so a tool call is recorded as the HTTP call it matches; the /mcp request keeps its own record.
 */
export function recordToolCall(
  caller: Caller,
  call: { requestId: string; method: string; path: string; outcome: DeclaredOutcome },
) {
  const { c } = caller;
  const principal = secretPrincipal(c);
  const { outcome } = call;
  const code = outcome.ok ? null : outcome.error.code;
  const written = logRequest(c.env, {
    requestId: call.requestId,
    accountId: principal.accountId,
    keyId: principal.keyId,
    method: call.method.toUpperCase(),
    path: `/api/v1${call.path}`,
    status: code === null ? 200 : (ERROR_STATUS[code as ErrorCode] ?? 500),
    code,
    credits: outcome.ok ? outcome.creditsUsed : 0,
    createdAt: Date.now(),
  });
  c.executionCtx.waitUntil(written);
}

/** What the engines serve, by name: products with bulk runs (and their list field), monitor kinds (and their path). */
export function catalog() {
  const products = registeredProducts();
  return {
    bulk: products.filter((p) => p.bulk).map((p) => ({ product: p.name as string, field: p.bulk!.field })),
    monitors: products
      .flatMap((p) => [p, ...(p.companions ?? [])])
      .filter((p) => p.monitor)
      .map((p) => ({
        kind: p.monitor!.family ?? p.name,
        base: `/${p.name}/${p.monitor!.path ?? "monitors"}`,
        listField: p.monitor!.listField,
      })),
  };
}
