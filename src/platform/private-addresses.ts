import { parseIp } from "./ip-address";
import { classifyAddress, isLoopback } from "./special-addresses";

/**
 * Destinations outgoing webhooks must never reach (SSRF guard): every address the special-purpose table
 * (`special-addresses.ts`) calls reserved, in both families, including IPv4-mapped, NAT64, 6to4 and Teredo addresses
 * that carry a reserved IPv4 address. True when `address` is not a public unicast address (or not an address at all).
 * Loopback passes only with `allowLoopback` (development).
 */
export function isPrivateAddress(address: string, allowLoopback = false): boolean {
  const ip = parseIp(address);
  if (ip === null) return true;
  if (allowLoopback && isLoopback(ip)) return false;
  return classifyAddress(ip).reserved;
}
