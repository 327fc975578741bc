import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { secretPrincipal } from "../../auth/principal";
import { ok } from "../../http/envelope";
import { ApiError, ERROR_STATUS, type ErrorCode } from "../../http/errors";
import type { SurfaceError } from "../../lookups/service";
import type { ActOutcome, KeyAct } from "../key-act";
import type { AppEnv } from "../../types";

/** The key act of a route whose key was checked: its principal and the request's pending rate limit. */
export const actOf = (c: Context<AppEnv>): KeyAct => ({
  env: c.env,
  principal: secretPrincipal(c),
  ...(c.var.admission ? { admission: c.var.admission } : {}),
});

export const isErrorCode = (code: string): code is ErrorCode => code in ERROR_STATUS;

/** A surface error as the API error its code names (429s with `Retry-After`). */
export function apiErrorOf(error: SurfaceError): ApiError {
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { "Retry-After": String(error.retryAfterSeconds) };
  return new ApiError(isErrorCode(error.code) ? error.code : "SERVER_ERROR", error.message, {
    headers,
    ...(error.errors ? { errors: error.errors } : {}),
  });
}

/** An engine act's outcome in the envelope (its credits for the request log), or its error thrown as the API's. */
export function answerOf(c: Context<AppEnv>, outcome: ActOutcome, status: ContentfulStatusCode = 200) {
  if (!outcome.ok) throw apiErrorOf(outcome.error);
  if (outcome.creditsUsed) c.set("creditsUsed", (c.var.creditsUsed ?? 0) + outcome.creditsUsed);
  return ok(c, outcome.data, outcome.meta, status);
}
