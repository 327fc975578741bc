import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../types";
import type { ApiError } from "./errors";

/** `{success: true, data, meta}`; `meta.request_id` is always present. */
export function ok<T>(
  c: Context<AppEnv>,
  data: T,
  meta: Record<string, unknown> = {},
  status: ContentfulStatusCode = 200,
) {
  return c.json({ success: true as const, data, meta: { ...meta, request_id: c.var.requestId } }, status);
}

/** `{success: false, error: {code, message, request_id, errors?}}` with the error's own status and headers. */
export function failure(c: Context<AppEnv>, err: ApiError) {
  const error = {
    code: err.code,
    message: err.message,
    request_id: c.var.requestId,
    ...(err.errors ? { errors: err.errors } : {}),
  };
  return c.json({ success: false as const, error }, err.status, err.headers);
}
