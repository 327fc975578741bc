/** A failure envelope (`{success: false, error}`), or an answer that was not one (then `code` is `HTTP_<status>`). */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The `request_id` to quote to support: from the envelope, else the `X-Request-Id` header. */
    readonly requestId: string | null,
    /** Validation failures (422): messages by field name. */
    readonly errors: Record<string, string[]> | null,
    /** Seconds the API asked to wait (`Retry-After`), when it did. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${code}: ${message}${requestId ? ` (request ${requestId})` : ""}`);
  }
}

interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; request_id: string; errors?: Record<string, string[]> };
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("Retry-After");
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

export async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text();
  let envelope: ErrorEnvelope | null = null;
  try {
    const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (parsed.success === false && parsed.error) envelope = parsed as ErrorEnvelope;
  } catch {
    // Not JSON: a proxy's or load balancer's page.
  }
  const headerId = response.headers.get("X-Request-Id");
  const retryAfter = retryAfterSeconds(response.headers);
  if (!envelope)
    return new ApiError(
      response.status,
      `HTTP_${response.status}`,
      text.slice(0, 200) || response.statusText,
      headerId,
      null,
      retryAfter,
    );
  const { code, message, request_id, errors } = envelope.error;
  return new ApiError(response.status, code, message, request_id ?? headerId, errors ?? null, retryAfter);
}
