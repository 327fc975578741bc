const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Request-time rule for a webhook or callback URL, as a value (null: acceptable): https only; plain http only to
 * loopback and only with the development switch on; no user name or password (`https://user:pass@host/`), which would
 * be stored and shown back with the monitor or run to every key of the account. Private destinations are refused at
 * delivery instead, because DNS can change between now and then. The API (src/http/webhook-url.ts) and the dashboard
 * refuse with these messages.
 */
export function webhookUrlProblem(env: Env, url: string): string | null {
  const parsed = new URL(url);
  const loopback = LOOPBACK_HOSTS.includes(parsed.hostname);
  const allowed =
    parsed.protocol === "https:" || (env.WEBHOOKS_ALLOW_LOOPBACK === "true" && parsed.protocol === "http:" && loopback);
  if (!allowed) return "Must be an https URL.";
  if (parsed.username || parsed.password) return "Must not carry a user name or password.";
  return null;
}
