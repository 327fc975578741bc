import { validationFailed } from "./errors";

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Request-time check of a webhook or callback URL: https only; plain http only to loopback and only with the
 * development switch on; no user name or password (`https://user:pass@host/`), which would be stored and shown back
 * with the monitor or run to every key of the account. Throws a 422 VALIDATION_FAILED naming `field`. Private
 * destinations are refused at delivery instead, because DNS can change between now and then.
 */
export function assertWebhookUrl(env: Env, field: string, url: string): void {
  const parsed = new URL(url);
  const loopback = LOOPBACK_HOSTS.includes(parsed.hostname);
  const allowed =
    parsed.protocol === "https:" || (env.WEBHOOKS_ALLOW_LOOPBACK === "true" && parsed.protocol === "http:" && loopback);
  if (!allowed) throw validationFailed({ [field]: ["Must be an https URL."] });
  if (parsed.username || parsed.password)
    throw validationFailed({ [field]: ["Must not carry a user name or password."] });
}
