/**
 * Amazon SNS subscription confirmation: an HTTP endpoint subscribed to a topic receives a `SubscriptionConfirmation`
 * message and confirms by fetching its `SubscribeURL`. Only an https URL on an SNS regional endpoint is fetched (in
 * development and tests also plain http on loopback, with WEBHOOKS_ALLOW_LOOPBACK), so a forged message cannot make
 * the service fetch anything else. Redirects are not followed.
 */
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];
const CONFIRM_TIMEOUT_MS = 10_000;

/** Whether `url` may be fetched to confirm a subscription. */
export function isSnsConfirmUrl(url: string, allowLoopback: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:" && SNS_HOST.test(parsed.hostname) && !parsed.port && !parsed.username && !parsed.password) return true;
  return allowLoopback && parsed.protocol === "http:" && LOOPBACK_HOSTS.includes(parsed.hostname);
}

/** Fetches the SubscribeURL; true when SNS answered 2xx (the subscription is then confirmed). */
export async function confirmSnsSubscription(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: "GET", redirect: "manual", signal: AbortSignal.timeout(CONFIRM_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
