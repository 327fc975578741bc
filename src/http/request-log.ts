import type { MiddlewareHandler } from "hono";
import { database } from "../db/client";
import { requestLog } from "../db/schema";
import type { AppEnv } from "../types";

/**
 * Records what each request of a known account did (GET /account/requests/{id}). Written after the response is sent;
 * a lost log row never fails the request.
 */
export const recordRequests = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  const principal = c.var.principal;
  if (!principal || principal.kind === "sandbox") return;
  const write = database(c.env)
    .insert(requestLog)
    .values({
      requestId: c.var.requestId,
      accountId: principal.accountId,
      keyId: principal.keyId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      code: c.var.errorCode ?? null,
      credits: c.var.creditsUsed ?? 0,
      createdAt: Date.now(),
    })
    .run()
    .catch((err: unknown) => console.error(JSON.stringify({ request_id: c.var.requestId, event: "request_log_failed", error: String(err) })));
  c.executionCtx.waitUntil(write);
};
