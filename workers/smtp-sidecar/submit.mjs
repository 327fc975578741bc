// POST /v1/submit: hands one finished message (the Worker's outbox renders and freezes it) to the operator's SMTP
// relay, with nodemailer (maintained, no dependencies) doing the submission: EHLO, STARTTLS when offered, AUTH, the
// envelope and DATA with dot-stuffing. The message bytes are sent as they are: the relay sees what the outbox stored.
import nodemailer from "nodemailer";
import { isSafeAddress } from "./request-schema.mjs";

/** The largest message (`raw`) handed to the relay. */
export const MAX_SUBMIT_BYTES = 512 * 1024;
/**
 * The largest /v1/submit request: `raw` travels as a JSON string, where escaping grows it (CR LF becomes four bytes, a
 * base64 body line of 78 bytes 80); twice the message and 64 KiB is room for any escaping plus the envelope.
 */
export const MAX_SUBMIT_REQUEST_BYTES = 2 * MAX_SUBMIT_BYTES + 64 * 1024;
const TIMEOUT_MS = { min: 1000, max: 60_000 };

/**
 * Validates a /v1/submit body: {from, to (plain addresses), raw (the RFC 5322 message), timeout_ms}.
 * @param {unknown} value
 * @returns {{ ok: true, value: { from: string, to: string, raw: string, timeoutMs: number } } | { ok: false, error:
 * string }}
 */
export function parseSubmitRequest(value) {
  if (typeof value !== "object" || value === null) return { ok: false, error: "body must be an object" };
  const { from, to, raw, timeout_ms: timeoutMs } = /** @type {Record<string, unknown>} */ (value);
  if (typeof from !== "string" || !isSafeAddress(from)) return { ok: false, error: "from must be a plain address" };
  if (typeof to !== "string" || !isSafeAddress(to)) return { ok: false, error: "to must be a plain address" };
  if (typeof raw !== "string" || raw.length === 0) return { ok: false, error: "raw must be the message text" };
  if (Buffer.byteLength(raw) > MAX_SUBMIT_BYTES)
    return { ok: false, error: `raw must be a message of at most ${MAX_SUBMIT_BYTES} bytes` };
  if (!Number.isInteger(timeoutMs) || timeoutMs < TIMEOUT_MS.min || timeoutMs > TIMEOUT_MS.max) {
    return { ok: false, error: `timeout_ms must be an integer from ${TIMEOUT_MS.min} to ${TIMEOUT_MS.max}` };
  }
  return { ok: true, value: { from, to, raw, timeoutMs } };
}

/**
 * @typedef {object} RelayConfig
 * @property {string} host SMTP_RELAY_HOST
 * @property {number} port SMTP_RELAY_PORT (default 587)
 * @property {boolean} secure SMTP_RELAY_SECURE=1: TLS from the first byte (port 465); otherwise STARTTLS when offered
 * @property {string} [user] SMTP_RELAY_USER
 * @property {string} [pass] SMTP_RELAY_PASS
 */

/**
 * Submits the message. `{sent: true, response}` with the relay's reply to DATA, or `{sent: false, permanent, detail}`:
 * permanent when the relay answered 5xx (the recipient or the message was refused), temporary for a 4xx, a timeout or a
 * connection failure (the Worker's outbox tries again later).
 * @param {{ from: string, to: string, raw: string, timeoutMs: number }} request
 * @param {RelayConfig | undefined} relay
 * @param {ReturnType<typeof createRelayPools>} pools
 */
export async function submit(request, relay, pools) {
  if (!relay?.host) return { sent: false, permanent: false, detail: "no SMTP relay configured (SMTP_RELAY_HOST)" };
  try {
    const info = await withTimeout(
      pools.transport(relay).sendMail({ envelope: { from: request.from, to: [request.to] }, raw: request.raw }),
      request.timeoutMs,
    );
    return { sent: true, response: String(info.response ?? "accepted") };
  } catch (error) {
    const code = typeof error?.responseCode === "number" ? error.responseCode : null;
    const detail = String(error?.response ?? error?.message ?? error).slice(0, 500);
    return { sent: false, permanent: code !== null && code >= 500, detail };
  }
}

const POOL_TIMEOUT_MS = 30_000;

/**
 * A sidecar's relay connections: one pooled nodemailer transport per relay, a few SMTP connections kept open and
 * reused (a new connection and EHLO per message cost about 100 ms on loopback, most of a submission); a connection
 * the relay drops is replaced by the pool. `close()` at the sidecar's shutdown.
 */
export function createRelayPools() {
  /** @type {Map<string, import("nodemailer").Transporter>} */
  const pools = new Map();
  return {
    /** @param {RelayConfig} relay */
    transport(relay) {
      const key = JSON.stringify([relay.host, relay.port, relay.secure, relay.user ?? ""]);
      let transport = pools.get(key);
      if (!transport) {
        transport = nodemailer.createTransport({
          pool: true,
          maxConnections: 4,
          host: relay.host,
          port: relay.port,
          secure: relay.secure,
          auth: relay.user ? { user: relay.user, pass: relay.pass ?? "" } : undefined,
          connectionTimeout: POOL_TIMEOUT_MS,
          greetingTimeout: POOL_TIMEOUT_MS,
          socketTimeout: POOL_TIMEOUT_MS,
        });
        pools.set(key, transport);
      }
      return transport;
    },
    close() {
      for (const transport of pools.values()) transport.close();
      pools.clear();
    },
  };
}

/** The request's own deadline over a pooled send (the pool's timeouts are per connection, not per message). */
function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`relay did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
