import { PartnerError, retryAfterMs } from "./guard";

/** Basic authentication as Twilio and Vonage expect it (`user:password`, base64). */
export const basicAuth = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

/**
 * A partner's HTTP answer as a PartnerError when it is a failure the guard handles: 429 (rate limited, with its
 * `Retry-After`), 401/403 (the operator's credentials), 5xx and anything else unexpected. `accepted` statuses are
 * answers (a 404 that means "no such number").
 */
export async function failureOf(response: Response, accepted: number[] = [200]): Promise<PartnerError | null> {
  if (accepted.includes(response.status)) return null;
  const detail = (await response.text().catch(() => "")).slice(0, 200);
  if (response.status === 429)
    return new PartnerError("rate_limited", `429 ${detail}`, retryAfterMs(response.headers.get("Retry-After")));
  if (response.status === 401 || response.status === 403)
    return new PartnerError("auth", `${response.status} ${detail}`);
  return new PartnerError("error", `${response.status} ${detail}`);
}

/** The body as JSON, or a malformed-answer failure. */
export async function jsonOf<T>(response: Response): Promise<T> {
  try {
    return (await response.json()) as T;
  } catch {
    throw new PartnerError("malformed", `unreadable JSON (${response.status})`);
  }
}
