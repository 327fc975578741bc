import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { markAnswered } from "../platform/trace";
import type { AppEnv } from "../types";

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
      c.executionCtx.waitUntil(run());
    }
  }
};

/**
 * The request's `defer`, which every surface hands the lookup service: it keeps `work` until the request's answer is
 * decided, or `ifFailed` if the request ends in an error (see `traceAnswer`).
 */
export const deferrerOf =
  (c: Context<AppEnv>) =>
  (work: () => Promise<unknown>, ifFailed?: () => Promise<unknown>): void => {
    const list = c.var.deferred ?? [];
    if (!c.var.deferred) c.set("deferred", list);
    list.push({ work, ifFailed, failed: false });
  };

/** How much work the request has deferred so far: a tool call's own starts there (`failDeferredSince`). */
export const deferredCount = (c: Context<AppEnv>) => c.var.deferred?.length ?? 0;

/** A tool call ended in an error: the work it deferred (from `since` on) runs its `ifFailed` instead. */
export function failDeferredSince(c: Context<AppEnv>, since: number) {
  for (const deferred of c.var.deferred?.slice(since) ?? []) deferred.failed = true;
}
