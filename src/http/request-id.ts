import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../types";
import { onError } from "./error-handler";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * `req_` and 32 hex digits: the first 12 the time it was made (ms), the other 20 random (80 bits). The time lets
 * `GET /account/requests/{id}` tell an id whose record may still be on its way to D1 from one never made, without
 * storing anything on the request's path.
 */
export const newRequestId = (now = Date.now()) =>
  `req_${now.toString(16).padStart(12, "0")}${hex(crypto.getRandomValues(new Uint8Array(10)))}`;

/** When the request id was made, or null for an id this service never made. */
export function requestIdTime(id: string): number | null {
  const match = /^req_([0-9a-f]{12})[0-9a-f]{20}$/.exec(id);
  return match ? Number.parseInt(match[1]!, 16) : null;
}

/**
 * Gives every request an id and stamps it on the response as `X-Request-Id`, whatever produced the response
 * (route, 404, 405 or the error handler). Client-sent ids are ignored so the id always matches our logs.
 * Hono hands only `Error` instances to the error handler; anything else thrown (a string, a promise rejected with a
 * plain value) would leave the app as a bare 500, so it is caught here and answered as SERVER_ERROR in the envelope.
 */
export const requestId = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const id = newRequestId();
  c.set("requestId", id);
  try {
    await next();
  } catch (thrown) {
    // Drop whatever answer was under way, headers included, before the error's own.
    c.res = undefined;
    c.res = await onError(thrown instanceof Error ? thrown : new Error(`Non-Error thrown: ${String(thrown)}`), c);
  }
  c.res.headers.set("X-Request-Id", id);
};
