import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { markAnswered } from "../platform/trace";
import type { AppEnv } from "../types";

/**
 * Marks where a request's answer is decided, for the round-trip counters (src/platform/trace.ts): registered inside the
 * request log, so the log's write and any other waitUntil work count as after the answer. After `next()` the route
 * index points at the handler (or middleware) that answered, so `routePath` names the matched pattern. Then the work
 * the route deferred past its answer (`c.var.deferred`: a lookup's settlement and list writes) starts, under
 * waitUntil, so nothing of it delays the answer.
 */
export const traceAnswer = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  markAnswered(c.req.method, routePath(c));
  for (const work of c.var.deferred ?? []) c.executionCtx.waitUntil(work());
};

/** Defers `work` until the request's answer is decided (see `traceAnswer`). */
export function deferPastAnswer(c: Context<AppEnv>, work: () => Promise<unknown>) {
  const list = c.var.deferred ?? [];
  if (!c.var.deferred) c.set("deferred", list);
  list.push(work);
}
