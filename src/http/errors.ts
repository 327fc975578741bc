import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error code of the public contract with its HTTP status (spec, "Errors"). */
export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  NOT_FOUND: 404,
  INSUFFICIENT_CREDITS: 402,
  RESULTS_NOT_READY: 409,
  JOB_ALREADY_FINISHED: 409,
  JOB_CANCELLED: 409,
  JOB_FAILED: 409,
  JOB_NOT_RESUMABLE: 409,
  JOB_INPUT_EXPIRED: 409,
  IP_LIST_LIMIT_REACHED: 409,
  MONITOR_LIMIT_REACHED: 409,
  JOB_NOT_FINISHED: 409,
  WEBHOOK_NOT_CONFIGURED: 409,
  INVALID_PUBLISHABLE_KEY: 401,
  ORIGIN_NOT_ALLOWED: 403,
  KEY_IP_NOT_ALLOWED: 403,
  KEY_ACCOUNT_MISMATCH: 403,
  KEY_SCOPE_DENIED: 403,
  KEY_SPEND_CAP_REACHED: 429,
  SANDBOX_ENDPOINT_NOT_ALLOWED: 403,
  SANDBOX_VALUE_NOT_ALLOWED: 403,
  SANDBOX_UNAVAILABLE: 503,
  CHALLENGE_FAILED: 403,
  UNKNOWN_FEEDBACK_PROVIDER: 404,
  INVALID_FEEDBACK_KEY: 401,
  EMAIL_NOT_VERIFIED: 403,
  IDEMPOTENCY_KEY_REUSED: 409,
  ADDRESS_LIST_UNAVAILABLE: 501,
  ADDRESS_STREETS_NOT_FOUND: 404,
  ASN_NOT_FOUND: 404,
  ASN_INDEX_UNAVAILABLE: 501,
  PHONE_BLOCK_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SERVER_ERROR: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Field name (dotted path for nested fields) -> messages. */
export type FieldErrors = Record<string, string[]>;

export interface ApiErrorOptions {
  /** Per-field messages; only for VALIDATION_FAILED. */
  errors?: FieldErrors;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
}

/** The one error class of the API: a spec code, a human message, and what the envelope needs. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (what = "Resource") => new ApiError("NOT_FOUND", `${what} not found.`);

export const validationFailed = (errors: FieldErrors, message = "The request has invalid fields.") =>
  new ApiError("VALIDATION_FAILED", message, { errors });

export const rateLimited = (retryAfterSeconds: number, message = "Too many requests; retry later.") =>
  new ApiError("RATE_LIMITED", message, { headers: { "Retry-After": String(retryAfterSeconds) } });
