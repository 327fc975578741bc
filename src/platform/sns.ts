import { SingleFlight } from "./io-scope";
import { certificatePublicKey, pemCertificate } from "./x509";

/**
 * Amazon SNS over HTTP(S): message signatures and subscription confirmation. SNS signs every message with the key of a
 * certificate it publishes at `SigningCertURL`; only https URLs on an SNS regional endpoint are fetched, for the
 * certificate and for the `SubscribeURL` a subscription is confirmed by (in development and tests also plain http on
 * loopback, with WEBHOOKS_ALLOW_LOOPBACK), so a forged message can make the service fetch nothing else. Redirects are
 * not followed.
 */
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];
const FETCH_TIMEOUT_MS = 10_000;

/** Whether `url` is an SNS endpoint URL the service may fetch. */
export function isSnsUrl(url: string, allowLoopback: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (
    parsed.protocol === "https:" &&
    SNS_HOST.test(parsed.hostname) &&
    !parsed.port &&
    !parsed.username &&
    !parsed.password
  )
    return true;
  return allowLoopback && parsed.protocol === "http:" && LOOPBACK_HOSTS.includes(parsed.hostname);
}

const get = (url: string) =>
  fetch(url, { method: "GET", redirect: "manual", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });

/** Fetches the SubscribeURL; true when SNS answered 2xx (the subscription is then confirmed). */
export async function confirmSnsSubscription(url: string): Promise<boolean> {
  try {
    const response = await get(url);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** The fields SNS signs, in order, per message type (absent optional fields are left out). */
const SIGNED_FIELDS: Record<string, readonly string[]> = {
  Notification: ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
  SubscriptionConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
  UnsubscribeConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
};

/** The string SNS signs: each field's name and value, one per line, each followed by a newline. */
export function snsStringToSign(message: Record<string, unknown>): string | null {
  const fields = SIGNED_FIELDS[String(message.Type)];
  if (!fields) return null;
  let text = "";
  for (const field of fields) {
    const value = message[field];
    if (value === undefined || value === null) {
      if (field === "Subject") continue;
      return null;
    }
    text += `${field}\n${String(value)}\n`;
  }
  return text;
}

const HASH: Record<string, string> = { "1": "SHA-1", "2": "SHA-256" };
/**
 * Signing keys by certificate URL and hash, per isolate (SNS rotates them rarely). Only loaded keys are shared between
 * requests; a fetch under way is shared inside its own request only (io-scope.ts).
 */
const keys = new Map<string, CryptoKey>();
const KEYS_MAX = 32;
const loading = new SingleFlight<CryptoKey | null>();

async function signingKey(url: string, hash: string): Promise<CryptoKey | null> {
  try {
    const response = await get(url);
    if (!response.ok) return null;
    const spki = certificatePublicKey(pemCertificate(await response.text()));
    return await crypto.subtle.importKey("spki", spki, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
  } catch {
    return null;
  }
}

/**
 * Whether an SNS message's `Signature` verifies with the certificate at its `SigningCertURL` (SignatureVersion 1:
 * SHA1withRSA, 2: SHA256withRSA). A certificate that could not be fetched or read is not cached.
 */
export async function verifySnsMessage(message: Record<string, unknown>, allowLoopback: boolean): Promise<boolean> {
  const hash = HASH[String(message.SignatureVersion)];
  const certUrl = typeof message.SigningCertURL === "string" ? message.SigningCertURL : null;
  const text = snsStringToSign(message);
  if (!hash || !certUrl || !text || typeof message.Signature !== "string" || !isSnsUrl(certUrl, allowLoopback))
    return false;
  const cacheKey = `${hash} ${certUrl}`;
  let loaded = keys.get(cacheKey) ?? null;
  if (!loaded) {
    loaded = await loading.run(cacheKey, () => signingKey(certUrl, hash));
    if (loaded) {
      if (keys.size >= KEYS_MAX) keys.delete(keys.keys().next().value!);
      keys.set(cacheKey, loaded);
    }
  }
  let signature: Uint8Array;
  try {
    signature = Uint8Array.from(atob(message.Signature), (c) => c.charCodeAt(0));
  } catch {
    return false;
  }
  return (
    loaded !== null && crypto.subtle.verify("RSASSA-PKCS1-v1_5", loaded, signature, new TextEncoder().encode(text))
  );
}
