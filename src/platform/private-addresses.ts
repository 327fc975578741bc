import { parseIp, parseRange } from "../auth/source-allowlist";

/**
 * Destinations outgoing webhooks must never reach (SSRF guard): private, loopback, link-local, CGNAT, documentation,
 * benchmarking, multicast and reserved ranges, in both families. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged by the
 * IPv4 address it carries, because parseIp folds both spellings onto one number.
 */
const LOOPBACK = ["127.0.0.0/8", "::1/128"].map((r) => parseRange(r)!);
const REFUSED = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/96",
  "64:ff9b::/96",
  "100::/64",
  "2001:db8::/32",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
].map((r) => parseRange(r)!);

const inAny = (ip: bigint, ranges: typeof REFUSED) => ranges.some((r) => (ip & r.mask) === r.base);

/** True when `address` is not a public unicast address. Loopback passes only with `allowLoopback` (development). */
export function isPrivateAddress(address: string, allowLoopback = false): boolean {
  const ip = parseIp(address);
  if (ip === null) return true;
  if (inAny(ip, LOOPBACK)) return !allowLoopback;
  return inAny(ip, REFUSED);
}
