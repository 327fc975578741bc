import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../types";
import { failure } from "./envelope";
import { ApiError, notFound, validationFailed } from "./errors";
import { newRequestId } from "./request-id-format";

const SERVER_ERROR_MESSAGE = "Something failed on our side; quote the request id if you contact support.";

function logUnhandled(requestId: string, method: string, path: string, err: unknown): void {
  const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  console.error(JSON.stringify({ request_id: requestId, event: "unhandled_error", method, path, error }));
}

function toApiError(err: unknown, c: Context<AppEnv>): ApiError {
  if (err instanceof ApiError) return err;
  // Hono's own validator throws 400 for a body it cannot parse; in this API that is a validation failure.
  if (err instanceof HTTPException && err.status === 400) return validationFailed({ body: [err.message] });
  logUnhandled(c.var.requestId, c.req.method, c.req.path, err);
  return new ApiError("SERVER_ERROR", SERVER_ERROR_MESSAGE);
}

/** The one error handler: ApiErrors become their envelope, anything else SERVER_ERROR logged against the request id. */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  const apiError = toApiError(err, c);
  c.set("errorCode", apiError.code);
  return failure(c, apiError);
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) => onError(notFound("Path"), c);

/**
 * The answer when the app itself fails (the error handler threw, say): still the SERVER_ERROR envelope with a request
 * id in the body and in `X-Request-Id`, logged against it, never the runtime's bare 500.
 */
export function lastResortAnswer(err: unknown, request: Request): Response {
  const requestId = newRequestId();
  logUnhandled(requestId, request.method, new URL(request.url).pathname, err);
  const error = { code: "SERVER_ERROR", message: SERVER_ERROR_MESSAGE, request_id: requestId };
  return Response.json({ success: false, error }, { status: 500, headers: { "X-Request-Id": requestId } });
}
