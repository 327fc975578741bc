/** The request id's format, read by the middleware that stamps it, the record reader and the last-resort answer. */
import { hmacHex } from "../platform/tokens";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const timeHex = (now: number) => now.toString(16).padStart(12, "0");

/**
 * `req_` and 32 hex digits: the first 12 the time it was made (ms), the other 20 random (80 bits). An id made without
 * the credential of a request (the last-resort answer): `GET /account/requests/{id}` never waits for its record.
 */
export const newRequestId = (now = Date.now()) =>
  `req_${timeHex(now)}${hex(crypto.getRandomValues(new Uint8Array(10)))}`;

/** What the signature covers: the id's time and nonce and the credential the request presented. */
const signed = (secret: string, stamp: string, credential: string) =>
  hmacHex(secret, `request-id:${stamp}:${credential}`).then((mac) => mac.slice(0, 12));

/**
 * A request's id: `req_`, 12 hex digits of time (ms), 8 of nonce (32 bits), then 12 of an HMAC (MAIL_LINK_SECRET) of
 * time, nonce and the request's credential (its bearer header or dashboard session cookie, `""` when none). The time
 * lets `GET /account/requests/{id}` tell an id whose record may still be on its way to D1 from one long gone; the
 * HMAC tells an id this service made for the same credential from one a caller made up, so only the first is waited
 * for, and nothing is stored on the request's path. Without a secret the id is random (never waited for).
 */
export async function mintRequestId(options: { secret?: string; credential: string; now?: number }): Promise<string> {
  const now = options.now ?? Date.now();
  if (!options.secret) return newRequestId(now);
  const stamp = `${timeHex(now)}${hex(crypto.getRandomValues(new Uint8Array(4)))}`;
  return `req_${stamp}${await signed(options.secret, stamp, options.credential)}`;
}

/** Whether this service made `id` for a request presenting `credential` (see `mintRequestId`). */
export async function madeFor(options: { id: string; secret?: string; credential: string }): Promise<boolean> {
  const match = /^req_([0-9a-f]{20})([0-9a-f]{12})$/.exec(options.id);
  if (!match || !options.secret) return false;
  return (await signed(options.secret, match[1]!, options.credential)) === match[2];
}

/** When the request id was made, or null for an id this service never made. */
export function requestIdTime(id: string): number | null {
  const match = /^req_([0-9a-f]{12})[0-9a-f]{20}$/.exec(id);
  return match ? Number.parseInt(match[1]!, 16) : null;
}
