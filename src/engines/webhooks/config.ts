import { validationFailed } from "../../http/errors";
import { DEFAULT_RETRY_BASE_MS, DEFAULT_TIMEOUT_MS, type DeliveryConfig } from "../../platform/webhooks";

/** A positive (or, where allowed, zero) number from a var; anything else falls back to the default. */
function numberVar(value: string | undefined, fallback: number, allowZero: boolean): number {
  const parsed = value === undefined || value.trim() === "" ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && (parsed > 0 || (allowZero && parsed === 0)) ? parsed : fallback;
}

/**
 * Delivery settings from vars. WEBHOOKS_ALLOW_LOOPBACK is a development switch, off in production;
 * WEBHOOK_TIMEOUT_MS and WEBHOOK_RETRY_BASE_MS exist so tests can shorten the waits (a zero backoff is allowed, a zero
 * timeout is not, since it would fail every attempt).
 */
export const deliveryConfig = (env: Env): DeliveryConfig => ({
  dohUrl: env.DOH_URL,
  allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK === "true",
  timeoutMs: numberVar(env.WEBHOOK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, false),
  retryBaseMs: numberVar(env.WEBHOOK_RETRY_BASE_MS, DEFAULT_RETRY_BASE_MS, true),
});

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Request-time check of a webhook or callback URL: https only; plain http only to loopback and only with the
 * development switch on. Throws a 422 naming `field`. Private destinations are refused at delivery instead, because
 * DNS can change between now and then.
 */
export function assertWebhookUrl(env: Env, field: string, url: string): void {
  const parsed = new URL(url);
  const loopback = LOOPBACK_HOSTS.includes(parsed.hostname);
  const allowed = parsed.protocol === "https:" || (env.WEBHOOKS_ALLOW_LOOPBACK === "true" && parsed.protocol === "http:" && loopback);
  if (!allowed) throw validationFailed({ [field]: ["Must be an https URL."] });
}
