import { cidrContains, parseCidr, parseIp } from "../platform/ip-address";

/** An allowlist entry: `1.2.3.4`, `10.0.0.0/8`, `2001:db8::/32`; null when malformed. */
export const parseRange = parseCidr;

/** Whether the request's source address is in one of the key's entries (IPv4-mapped IPv6 matches IPv4 entries). */
export function isAllowedSource(allowlist: readonly string[], source: string | undefined): boolean {
  const ip = source ? parseIp(source) : null;
  if (ip === null) return false;
  return allowlist.some((entry) => {
    const range = parseCidr(entry);
    return range !== null && cidrContains(range, ip);
  });
}
