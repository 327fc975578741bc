import type { Context } from "hono";
import { secretPrincipal } from "../../auth/principal";
import { ERROR_STATUS, type ErrorCode } from "../../http/errors";
import { logRequest } from "../../http/request-log";
import { deferrerOf } from "../../http/trace-answer";
import type { Defer } from "../../engines/product";
import type { LookupCaller } from "../../lookups/service";
import { registeredProducts } from "../../products/registry";
import type { ActOutcome, KeyAct } from "../key-act";
import type { AppEnv } from "../../types";

/**
 * What a tool call needs of the /mcp request: its checked key, pending rate limit and request id (`c`). Every tool
 * calls the lookup service (./lookup-tools.ts, through src/lookups/service.ts) or an engine act
 * (./engine-tools.ts, src/surfaces/*-acts.ts) directly, as the REST routes do; nothing goes back through the app.
 */
export interface Caller {
  c: Context<AppEnv>;
  /** One tool call's own `defer` (server.ts `run`), so its failure fails its own deferred work alone. */
  defer?: Defer;
}

export interface ApiFailure {
  code: string;
  message: string;
  request_id: string;
  errors?: Record<string, string[]>;
  /** From a 429's Retry-After, so an agent knows when to try again. */
  retry_after_seconds?: number;
}

/** A tool's answer: `data` and `meta` as the HTTP envelope carries them, or the error it carries. */
export type ToolAnswer = { ok: true; data: unknown; meta: Record<string, unknown> } | { ok: false; error: ApiFailure };

/** An act's or a declared lookup's outcome as the tool's answer, under the call's own request id. */
export function toolAnswerOf(outcome: ActOutcome, requestId: string): ToolAnswer {
  if (outcome.ok) return { ok: true, data: outcome.data, meta: { ...outcome.meta, request_id: requestId } };
  const { retryAfterSeconds, ...error } = outcome.error;
  return {
    ok: false,
    error: {
      ...error,
      request_id: requestId,
      ...(retryAfterSeconds ? { retry_after_seconds: retryAfterSeconds } : {}),
    },
  };
}

/**
 * The key act of one tool call. `firstCallCounts`: the act's first call to the account's object counts the /mcp
 * request's pending rate limit (as `admitOnFirstCall` routes do); otherwise the caller admitted it already.
 */
export const keyActOf = (caller: Caller, firstCallCounts: boolean): KeyAct => {
  const { c } = caller;
  const admission = firstCallCounts ? c.var.admission : undefined;
  return { env: c.env, principal: secretPrincipal(c), ...(admission ? { admission } : {}) };
};

/** The lookup service's caller for one tool call: the /mcp request's key and pending rate limit, the call's own id. */
export function lookupCallerOf(caller: Caller): LookupCaller {
  const { c } = caller;
  return {
    env: c.env,
    principal: secretPrincipal(c),
    requestId: toolCallId(caller),
    ...(c.var.admission ? { admission: c.var.admission } : {}),
    defer: caller.defer ?? deferrerOf(c),
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
 * A tool call's answer, once its request record is written (GET /account/requests/{id}) under the API path it stands
 * for, so a tool call is recorded as the HTTP call it matches; the /mcp request keeps its own record.
 */
export function answerToolCall(
  caller: Caller,
  call: { requestId: string; method: string; path: string; outcome: ActOutcome },
): ToolAnswer {
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
    credits: outcome.ok ? (outcome.creditsUsed ?? 0) : 0,
    createdAt: Date.now(),
  });
  c.executionCtx.waitUntil(written);
  return toolAnswerOf(outcome, call.requestId);
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
