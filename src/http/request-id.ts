import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../types";
import { requestCredential } from "./credential";
import { onError } from "./error-handler";
import { mintRequestId } from "./request-id-format";

/**
 * Gives every request an id and stamps it on the response as `X-Request-Id`, whatever produced the response
 * (route, 404, 405 or the error handler). Client-sent ids are ignored so the id always matches our logs.
 * Hono hands only `Error` instances to the error handler; anything else thrown (a string, a promise rejected with a
 * plain value) would leave the app as a bare 500, so it is caught here and answered as SERVER_ERROR in the envelope.
 */
export const requestId = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  // An app run without bindings (a unit test's `app.request`) has no env: its ids are random, never waited for.
  const secret = (c.env as Partial<Env> | undefined)?.MAIL_LINK_SECRET;
  const id = await mintRequestId({ secret, credential: requestCredential(c) });
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
