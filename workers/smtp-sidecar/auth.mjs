// Request signing shared with the Worker (src/platform/smtp-sidecar-client.ts). Wire format:
//   X-Sidecar-Timestamp: <unix seconds>
//   X-Sidecar-Signature: lowercase hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`)
// where rawBody is the request body bytes exactly as sent. Both sides must change together.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far (seconds, either direction) a request's timestamp may be from this server's clock. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/**
 * The signature the Worker sends for `rawBody` at `timestamp`.
 * @param {string} secret
 * @param {string | number} timestamp unix seconds
 * @param {string | Buffer} rawBody
 */
export function signRequest(secret, timestamp, rawBody) {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/**
 * Checks the two signing headers against the raw body.
 * @param {{ secret: string, timestamp: unknown, signature: unknown, rawBody: Buffer, nowSeconds?: number }} input
 * @returns {string | null} why the request is rejected, or null when it is authentic and fresh
 */
export function verifyRequest({ secret, timestamp, signature, rawBody, nowSeconds = Math.floor(Date.now() / 1000) }) {
  if (typeof timestamp !== "string" || !/^\d{1,12}$/.test(timestamp)) return "missing or malformed X-Sidecar-Timestamp";
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature))
    return "missing or malformed X-Sidecar-Signature";
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_CLOCK_SKEW_SECONDS) return "timestamp outside the allowed window";
  const expected = Buffer.from(signRequest(secret, timestamp, rawBody), "hex");
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? null : "bad signature";
}
