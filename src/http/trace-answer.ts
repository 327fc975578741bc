import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Defer } from "../engines/product";
import { markAnswered } from "../platform/trace";
import type { AppEnv, DeferredWork } from "../types";

/**
 * Marks where a request's answer is decided, for the round-trip counters (src/platform/trace.ts): registered inside the
 * request log, so the log's write and any other waitUntil work count as after the answer. After `next()` the route
 * index points at the handler (or middleware) that answered, so `routePath` names the matched pattern. Then the work
 * the route deferred past its answer starts, under waitUntil, so nothing of it delays the answer. A request that
 * ended in an error (`c.error`: the error handler answered it, or something thrown past it) starts each work's
 * `ifFailed` instead.
 */
export const traceAnswer = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  let failed = true;
  try {
    await next();
    failed = c.error !== undefined;
    markAnswered(c.req.method, routePath(c));
  } finally {
    for (const deferred of c.var.deferred ?? []) {
      const run = failed || deferred.failed ? (deferred.ifFailed ?? deferred.work) : deferred.work;
      if (run) c.executionCtx.waitUntil(run());
    }
  }
};

/**
 * The request's `defer`, which every surface hands the lookup service: it keeps `work` until the request's answer is
 * decided, or `ifFailed` if the request ends in an error (see `traceAnswer`). `own`: the entries are also kept there,
 * for a part of the request that may fail alone (a tool call, `callDeferrer`).
 */
export const deferrerOf =
  (c: Context<AppEnv>, own?: DeferredWork[]): Defer =>
  (work, ifFailed) => {
    const list = c.var.deferred ?? [];
    if (!c.var.deferred) c.set("deferred", list);
    const deferred = { work, ifFailed, failed: false };
    list.push(deferred);
    own?.push(deferred);
  };

/**
 * One tool call's `defer` and its failure: `fail` marks the work this call deferred, and only that, to run its
 * `ifFailed` (a lookup's settlement releases its hold, its refund gives back what it settled), whatever other calls of
 * the request deferred before, after or between its own.
 */
export function callDeferrer(c: Context<AppEnv>): { defer: Defer; fail: () => void } {
  const own: DeferredWork[] = [];
  return {
    defer: deferrerOf(c, own),
    fail: () => {
      for (const deferred of own) deferred.failed = true;
    },
  };
}
