/** The request id's format, read by the middleware that stamps it and by the last-resort error answer. */

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * `req_` and 32 hex digits: the first 12 the time it was made (ms), the other 20 random (80 bits). The time lets
 * `GET /account/requests/{id}` tell an id whose record may still be on its way to D1 from one never made, without
 * storing anything on the request's path.
 */
export const newRequestId = (now = Date.now()) =>
  `req_${now.toString(16).padStart(12, "0")}${hex(crypto.getRandomValues(new Uint8Array(10)))}`;

/** When the request id was made, or null for an id this service never made. */
export function requestIdTime(id: string): number | null {
  const match = /^req_([0-9a-f]{12})[0-9a-f]{20}$/.exec(id);
  return match ? Number.parseInt(match[1]!, 16) : null;
}
