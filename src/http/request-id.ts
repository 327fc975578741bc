import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../types";

export const newRequestId = () => `req_${crypto.randomUUID().replaceAll("-", "")}`;

/**
 * Gives every request an id and stamps it on the response as `X-Request-Id`, whatever produced the response
 * (route, 404, 405 or the error handler). Client-sent ids are ignored so the id always matches our logs.
 */
export const requestId = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const id = newRequestId();
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
};
