import { resolve } from "./doh";
import { isPrivateAddress } from "./private-addresses";

/**
 * The one engine for outgoing webhooks and callbacks (spec, "Events"): signing, the SSRF guard, and delivery with
 * retries. Products hand it a URL, the exact body string and the secret; it never reads the receiver's response body.
 */
export const OLD_SIGNATURE_UNTIL = Date.parse("2027-03-01T00:00:00Z");

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface Signature {
  /** `X-Service-Signature-V2`: `t={unix seconds},v2={hex}` over `v2:{t}:{body}`. */
  timestamped: string;
  timestamp: number;
  /** `X-Service-Signature`: hex over the body alone; sent until 1 March 2027. */
  legacy: string;
}

export async function sign(secret: string, body: string, nowMs = Date.now()): Promise<Signature> {
  const timestamp = Math.floor(nowMs / 1000);
  const [v2, legacy] = await Promise.all([hmacHex(secret, `v2:${timestamp}:${body}`), hmacHex(secret, body)]);
  return { timestamped: `t=${timestamp},v2=${v2}`, timestamp, legacy };
}

export function signatureHeaders(signature: Signature, nowMs = Date.now()): Record<string, string> {
  const headers: Record<string, string> = { "X-Service-Signature-V2": signature.timestamped };
  if (nowMs < OLD_SIGNATURE_UNTIL) headers["X-Service-Signature"] = signature.legacy;
  return headers;
}

/** Per-deployment delivery settings (vars); the defaults are the spec's. */
export interface DeliveryConfig {
  dohUrl: string;
  /** Development only: lets http:// loopback receivers through (WEBHOOKS_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  attempts?: number;
  timeoutMs?: number;
  /** Backoff before attempt n (n >= 2) is retryBaseMs * 3^(n-2): 5 s then 15 s by default, about half a minute in all. */
  retryBaseMs?: number;
}

export interface DeliveryResult {
  delivered: boolean;
  /** The receiver's HTTP status, 0 when there was none. */
  statusCode: number;
  /** The status as text (`200`), or the transport failure. */
  detail: string;
  /** The signature of the last attempt (or the one that would have been sent, when refused). */
  signature: Signature;
}

export const PRIVATE_REFUSAL = "Refused: private address";

/** Null when the URL may be posted to now; otherwise the refusal detail. Checked before every attempt. */
export async function refusal(url: URL, config: DeliveryConfig): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopbackHttp = config.allowLoopback && url.protocol === "http:";
  if (url.protocol !== "https:" && !loopbackHttp) return "Refused: not https";
  if (parseLiteral(host)) return isPrivateAddress(host, config.allowLoopback) ? PRIVATE_REFUSAL : null;
  if (config.allowLoopback && host === "localhost") return null;
  const [a, aaaa] = await Promise.all([resolve(config.dohUrl, host, "A"), resolve(config.dohUrl, host, "AAAA")]);
  const addresses = [...a.records, ...aaaa.records];
  if (!addresses.length) return a.status === "error" && aaaa.status === "error" ? "DNS lookup failed" : "Host has no address";
  return addresses.some((ip) => isPrivateAddress(ip, config.allowLoopback)) ? PRIVATE_REFUSAL : null;
}

const parseLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(":");

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/**
 * POSTs `body` with fresh signature headers per attempt: up to 3 attempts on connection errors and 5xx, each with its
 * own timeout; any other answer ends the delivery (2xx delivered, 3xx and 4xx failed: redirects are never followed).
 * A destination that resolves to a private or reserved address is refused before every attempt, with nothing sent.
 */
export async function deliver(url: string, body: string, secret: string, config: DeliveryConfig, extraHeaders: Record<string, string> = {}): Promise<DeliveryResult> {
  const attempts = config.attempts ?? 3;
  const timeoutMs = config.timeoutMs ?? 10_000;
  const retryBaseMs = config.retryBaseMs ?? 5_000;
  let signature = await sign(secret, body);
  let last: DeliveryResult = { delivered: false, statusCode: 0, detail: "not attempted", signature };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(retryBaseMs * 3 ** (attempt - 2));
    const target = new URL(url);
    const refused = await refusal(target, config);
    if (refused) return { delivered: false, statusCode: 0, detail: refused, signature };
    if (attempt > 1) signature = await sign(secret, body);
    try {
      const response = await fetch(target, {
        method: "POST",
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
        headers: { "Content-Type": "application/json", "User-Agent": "verification-api-webhooks/1", ...signatureHeaders(signature), ...extraHeaders },
      });
      await response.body?.cancel();
      last = { delivered: response.status >= 200 && response.status < 300, statusCode: response.status, detail: String(response.status), signature };
      if (response.status < 500) return last;
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      const detail = timedOut ? `Timed out after ${timeoutMs} ms` : `Connection failed: ${err instanceof Error ? err.message : String(err)}`;
      last = { delivered: false, statusCode: 0, detail, signature };
    }
  }
  return last;
}
