import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { markAnswered } from "../platform/trace";
import type { AppEnv } from "../types";

/**
 * Marks where a request's answer is decided, for the round-trip counters (src/platform/trace.ts): registered inside the
 * request log, so the log's write and any other waitUntil work count as after the answer. After `next()` the route
 * index points at the handler (or middleware) that answered, so `routePath` names the matched pattern.
 */
export const traceAnswer = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  markAnswered(c.req.method, routePath(c));
};
