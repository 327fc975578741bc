// Validation of POST /v1/probe bodies. Addresses and host names end up inside SMTP command lines, so only a strict
// subset of RFC 5321 is accepted: a dot-atom local part of printable ASCII (no quoted strings, so no spaces, CR, LF,
// NUL, `<` or `>`) at exactly the requested LDH domain. Anything else is a 400 before any socket is opened.
import { isIP } from "node:net";

export const LIMITS = Object.freeze({
  addresses: { min: 1, max: 50 },
  mxHosts: { min: 1, max: 20 },
  timeoutMs: { min: 2000, max: 60000 },
  addressLength: 254,
  localPartLength: 64,
});

const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const LOCAL_PART = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`);
/** The account a probe is for (the Worker's account id), so free uncertain answers are bounded per account. */
const ACCOUNT = /^[A-Za-z0-9_-]{1,64}$/;
const LDH_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/**
 * Whether `name` is a letters-digits-hyphens host name (labels of 1-63 characters, 253 in all), as used in DNS for
 * mail domains and MX targets. IDNs must already be in punycode (xn--).
 * @param {unknown} name
 * @param {{ allowTrailingDot?: boolean }} [options]
 */
export function isHostname(name, { allowTrailingDot = false } = {}) {
  if (typeof name !== "string") return false;
  const bare = allowTrailingDot && name.endsWith(".") ? name.slice(0, -1) : name;
  return bare.length > 0 && bare.length <= 253 && bare.split(".").every((label) => LDH_LABEL.test(label));
}

/**
 * Whether `address` is safe to place in `RCPT TO:<...>` / `MAIL FROM:<...>`, optionally only at `domain`.
 * @param {unknown} address
 * @param {string} [domain] when given, the address's domain must equal it (case-insensitively)
 */
export function isSafeAddress(address, domain) {
  if (typeof address !== "string" || address.length > LIMITS.addressLength) return false;
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const host = address.slice(at + 1);
  if (at < 1 || local.length > LIMITS.localPartLength || !LOCAL_PART.test(local) || !isHostname(host)) return false;
  return domain === undefined || host.toLowerCase() === domain.toLowerCase();
}

/**
 * Parses and validates a probe request body.
 * @param {unknown} body the parsed JSON
 * @returns {{ ok: true, value: { domain: string, mx_hosts: { host: string, preference: number }[], addresses: string[],
 * timeout_ms: number, catch_all_probe: boolean, account?: string } } | { ok: false, error: string }}
 */
export function parseProbeRequest(body) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalid("body must be a JSON object");
  const {
    domain,
    mx_hosts: mxHosts,
    addresses,
    timeout_ms: timeoutMs,
    catch_all_probe: catchAllProbe = true,
    account,
  } = /** @type {Record<string, unknown>} */ (body);

  if (!isHostname(domain)) return invalid("domain must be an LDH host name");
  if (!isListOf(mxHosts, LIMITS.mxHosts)) return invalid(`mx_hosts must be an array of ${range(LIMITS.mxHosts)} items`);
  for (const mx of mxHosts) {
    if (typeof mx !== "object" || mx === null) return invalid("each mx_hosts item must be an object");
    if (!isHostname(mx.host, { allowTrailingDot: true }) && !isIP(mx.host)) {
      return invalid("mx_hosts[].host must be an LDH host name or an IP address");
    }
    if (!Number.isInteger(mx.preference) || mx.preference < 0 || mx.preference > 65535) {
      return invalid("mx_hosts[].preference must be an integer from 0 to 65535");
    }
  }
  if (!isListOf(addresses, LIMITS.addresses))
    return invalid(`addresses must be an array of ${range(LIMITS.addresses)} strings`);
  if (!addresses.every((address) => isSafeAddress(address, domain))) {
    return invalid("every address must be a plain dot-atom address (max 254 characters) at domain");
  }
  const { min, max } = LIMITS.timeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < min || timeoutMs > max) {
    return invalid(`timeout_ms must be an integer from ${min} to ${max}`);
  }
  if (typeof catchAllProbe !== "boolean") return invalid("catch_all_probe must be a boolean");
  if (account !== undefined && (typeof account !== "string" || !ACCOUNT.test(account))) {
    return invalid("account must be 1 to 64 letters, digits, '_' or '-'");
  }
  const value = {
    domain,
    mx_hosts: mxHosts.map(({ host, preference }) => ({ host, preference })),
    addresses: [...addresses],
    timeout_ms: timeoutMs,
    catch_all_probe: catchAllProbe,
    ...(account === undefined ? {} : { account }),
  };
  return { ok: true, value };
}

const invalid = (error) => ({ ok: false, error });
const range = ({ min, max }) => `${min} to ${max}`;
const isListOf = (list, { min, max }) => Array.isArray(list) && list.length >= min && list.length <= max;
