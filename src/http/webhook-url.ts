import { validationFailed } from "./errors";

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
