import { relayDelivery, type RelayOutcome } from "./delivery-relay";
import { resolve } from "./doh";
import { isPrivateAddress } from "./private-addresses";
import { hmacHex } from "./tokens";
import type { SidecarTarget } from "./sidecar-request";

/**
 * Signing, the SSRF guard and single POST attempts for outgoing webhooks and callbacks (spec, "Events"). Products never
 * call this directly: real deliveries go through the outbox (`src/engines/webhooks/outbox.ts`), which makes one attempt
 * per queue message; `deliver` (attempts with in-request sleeps) is only for `POST /webhooks/test`, which must answer
 * with the outcome. The receiver's response body is never read.
 */

/** The body-only `X-Service-Signature` header is sent while the clock is before this instant (1 March 2027). */
export const OLD_SIGNATURE_UNTIL = Date.parse("2027-03-01T00:00:00Z");

/** Both signature header values of one attempt. */
export interface Signature {
  /** `X-Service-Signature-V2`: `t={unix seconds},v2={hex}` over `v2:{t}:{body}`. */
  timestamped: string;
  timestamp: number;
  /** `X-Service-Signature`: hex over the body alone; sent until 1 March 2027. */
  legacy: string;
}

/** Signs `body` with `secret` at `nowMs` (HMAC-SHA256, both the V2 and the legacy form). */
export async function sign(secret: string, body: string, nowMs = Date.now()): Promise<Signature> {
  const timestamp = Math.floor(nowMs / 1000);
  const [v2, legacy] = await Promise.all([hmacHex(secret, `v2:${timestamp}:${body}`), hmacHex(secret, body)]);
  return { timestamped: `t=${timestamp},v2=${v2}`, timestamp, legacy };
}

/** The signature headers to send at `nowMs`: the legacy header only before OLD_SIGNATURE_UNTIL. */
export function signatureHeaders(signature: Signature, nowMs = Date.now()): Record<string, string> {
  const headers: Record<string, string> = { "X-Service-Signature-V2": signature.timestamped };
  if (nowMs < OLD_SIGNATURE_UNTIL) headers["X-Service-Signature"] = signature.legacy;
  return headers;
}

/**
 * `Webhook-Delivery-Id`: the same on every attempt of one delivery record (retries and redeliveries included), so a
 * receiver can drop a delivery it already processed. It is not covered by the signature: dedupe after verifying.
 */
export const DELIVERY_ID_HEADER = "Webhook-Delivery-Id";

/** The header value of an outbox record (`whd_` + its id). */
export const deliveryIdOf = (recordId: number) => `whd_${recordId}`;

/** Per-deployment delivery settings (vars); the defaults are the spec's. */
export interface DeliveryConfig {
  dohUrl: string;
  /** Development only: lets http:// loopback receivers through (WEBHOOKS_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  attempts?: number;
  timeoutMs?: number;
  /**
   * Backoff before attempt n (n >= 2) is retryBaseMs * 3^(n-2): 5 s then 15 s by default, about half a minute in all.
   */
  retryBaseMs?: number;
  /**
   * The sidecar that makes each attempt to the checked address (pinned). Without one nothing is sent: the Worker's own
   * fetch() would resolve the name again when it connects, and a DNS answer that changed after the check (a public
   * address to the guard, a private one to the connection) would reach the private network.
   */
  relay: { target: SidecarTarget; secret: string } | null;
}

/** The spec's defaults: three attempts, 10 s each, 5 s then 15 s apart. */
export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_BASE_MS = 5_000;

/** The wait before attempt `attempt` (2 or later), in milliseconds. */
export const retryDelayMs = (attempt: number, config: DeliveryConfig) =>
  (config.retryBaseMs ?? DEFAULT_RETRY_BASE_MS) * 3 ** (attempt - 2);

/** The outcome of a delivery (the test route's answer, and what the outbox records). */
export interface DeliveryResult {
  delivered: boolean;
  /** The receiver's HTTP status, 0 when there was none. */
  statusCode: number;
  /** The status as text (`200`), or the transport failure or refusal. */
  detail: string;
  /** The signature of the last attempt (or the one that would have been sent, when refused). */
  signature: Signature;
}

/** One attempt's outcome; `retryable` is true only for a connection failure, a timeout or a 5xx. */
export interface AttemptResult extends DeliveryResult {
  retryable: boolean;
}

const FAILURES: [RegExp, string][] = [
  [/refused/i, "Connection failed: refused by the receiver"],
  [/lost|reset|closed|disconnect|hang ?up/i, "Connection failed: dropped before an answer"],
  [/dns|resolv|not ?found|getaddrinfo/i, "Connection failed: host not found"],
  [/tls|ssl|certificate|handshake/i, "Connection failed: TLS handshake failed"],
];

/**
 * A plain reason for a failed connection: the runtime's own messages (`internal error; reference = ...`) stay in logs.
 */
function connectionFailure(message: string): string {
  return FAILURES.find(([pattern]) => pattern.test(message))?.[1] ?? "Connection failed: could not connect";
}

/**
 * The detail of a delivery refused because the destination is private or reserved: one text whatever the address, so
 * a refusal tells the caller nothing about the private network.
 */
export const PRIVATE_REFUSAL = "Refused: private address";

/** The detail when no sidecar can make the attempt (a deployment without one): nothing is sent. */
export const NO_ROUTE = "Not sent: no delivery route";

/**
 * The largest body a webhook or callback carries (8 MiB), far above what any run can produce: a 1,000-entry phone
 * monitor run is about 1.2 MB, the largest body a customer can make (500 address entries of 200-character lines in
 * 4-byte characters, every watched field changed) about 3.3 MB. The sidecar's relay takes the same
 * (workers/smtp-sidecar/deliver.mjs; a test pins the two equal).
 */
export const MAX_WEBHOOK_BODY_BYTES = 8 * 1024 * 1024;

/** The detail of a body over the limit: nothing is sent, and it is not retried (it would be refused again). */
export const tooLarge = (bytes: number) =>
  `Not sent: the body is ${bytes} bytes, over the ${MAX_WEBHOOK_BODY_BYTES}-byte webhook limit`;

/**
 * Where an attempt may go: `{address}`, the one address checked (the IP literal, or a resolved address when every A
 * and AAAA answer is public), or `{refused}` with the refusal detail. Checked before every attempt.
 */
export async function checkDestination(
  url: URL,
  config: DeliveryConfig,
): Promise<{ address: string } | { refused: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopbackHttp = config.allowLoopback && url.protocol === "http:";
  if (url.protocol !== "https:" && !loopbackHttp) return { refused: "Refused: not https" };
  if (parseLiteral(host))
    return isPrivateAddress(host, config.allowLoopback) ? { refused: PRIVATE_REFUSAL } : { address: host };
  if (config.allowLoopback && host === "localhost") return { address: "127.0.0.1" };
  const [a, aaaa] = await Promise.all([resolve(config.dohUrl, host, "A"), resolve(config.dohUrl, host, "AAAA")]);
  const addresses = [...a.records, ...aaaa.records];
  if (!addresses.length)
    return { refused: a.status === "error" && aaaa.status === "error" ? "DNS lookup failed" : "Host has no address" };
  return addresses.some((ip) => isPrivateAddress(ip, config.allowLoopback))
    ? { refused: PRIVATE_REFUSAL }
    : { address: addresses[0]! };
}

const parseLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(":");

/** The relay's outcome as an attempt's result. */
function relayed(outcome: RelayOutcome, timeoutMs: number, signature: Signature): AttemptResult {
  if ("status" in outcome) {
    const delivered = outcome.status >= 200 && outcome.status < 300;
    return {
      delivered,
      statusCode: outcome.status,
      detail: String(outcome.status),
      signature,
      retryable: outcome.status >= 500,
    };
  }
  if (outcome.error === "refused")
    return { delivered: false, statusCode: 0, detail: PRIVATE_REFUSAL, signature, retryable: false };
  // The relay turned the request down (a sidecar with other limits than this Worker's): asking again changes nothing.
  if (outcome.error === "rejected")
    return { delivered: false, statusCode: 0, detail: `Not sent: ${outcome.detail}`, signature, retryable: false };
  const detail = outcome.error === "timeout" ? `Timed out after ${timeoutMs} ms` : connectionFailure(outcome.detail);
  return { delivered: false, statusCode: 0, detail, signature, retryable: true };
}

/** One webhook to post: the receiver's URL, the JSON body, the secret signing it, and the caller's own headers. */
export interface WebhookPost {
  url: string;
  body: string;
  secret: string;
  headers?: Record<string, string>;
}

/**
 * One POST of `body` with freshly signed headers (a retry must not carry a stale timestamp). The destination is checked
 * first and a refusal sends nothing; the sidecar then connects to the very address checked (never a fetch() that
 * resolves the name again), sending the host name only as Host and TLS server name. Redirects are never followed (a 3xx
 * is a failure) and the response body is discarded unread. A body over `MAX_WEBHOOK_BODY_BYTES` is not sent. Only a
 * connection failure, a timeout or a 5xx is `retryable`: anything else is the receiver's final word, and a refusal
 * would be refused again.
 */
export async function postOnce(post: WebhookPost, config: DeliveryConfig): Promise<AttemptResult> {
  const { url, body, secret, headers: extraHeaders = {} } = post;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signature = await sign(secret, body);
  const bytes = new TextEncoder().encode(body).byteLength;
  if (bytes > MAX_WEBHOOK_BODY_BYTES)
    return { delivered: false, statusCode: 0, detail: tooLarge(bytes), signature, retryable: false };
  const target = new URL(url);
  const destination = await checkDestination(target, config);
  if ("refused" in destination)
    return { delivered: false, statusCode: 0, detail: destination.refused, signature, retryable: false };
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "verification-api-webhooks/1",
    ...signatureHeaders(signature),
    ...extraHeaders,
  };
  if (!config.relay) return { delivered: false, statusCode: 0, detail: NO_ROUTE, signature, retryable: false };
  const outcome = await relayDelivery(config.relay.target, config.relay.secret, {
    url,
    address: destination.address,
    body,
    headers,
    timeoutMs,
  });
  return relayed(outcome, timeoutMs, signature);
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/**
 * The whole delivery inside one request, for `POST /webhooks/test` only (it answers with the outcome, so it cannot
 * hand retries to the queue): up to 3 attempts with the real backoff, ending at the first answer that is not retryable.
 * Real deliveries use the outbox, which never sleeps in a consumer.
 */
export async function deliver(post: WebhookPost, config: DeliveryConfig): Promise<DeliveryResult> {
  const attempts = config.attempts ?? DEFAULT_ATTEMPTS;
  let last: AttemptResult | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(retryDelayMs(attempt, config));
    last = await postOnce(post, config);
    if (!last.retryable) break;
  }
  if (last) return last;
  return { delivered: false, statusCode: 0, detail: "not attempted", signature: await sign(post.secret, post.body) };
}
