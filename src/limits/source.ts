import { parseIp } from "../platform/ip-address";

/** Anything that can say a request header (a Hono request of any app). */
interface HasHeaders {
  req: { header(name: string): string | undefined };
}

/**
 * The subject a per-address rule counts a source under (every one of them: unknown keys, browser visitors, the
 * sandbox, sign-in and sign-up, passkey options). IPv6 counts per /64, the block one subscriber is usually given, so
 * stepping through one's own /64 does not buy a fresh budget; IPv4 (mapped spellings included) per address. A missing
 * or unreadable address is one shared subject: on Cloudflare the header is always set by Cloudflare, so that happens
 * only off it, where the header is the client's anyway (docs/operations.md, "Off Cloudflare, one subject").
 */
export function sourceSubject(address: string | undefined): string {
  const ip = address ? parseIp(address) : null;
  if (!ip) return "unknown";
  return ip.version === 4 ? `v4:${ip.value.toString(16)}` : `v6:${(ip.value >> 64n).toString(16)}/64`;
}

/** The subject of the request's source address, as Cloudflare reports it (`CF-Connecting-IP`). */
export const requestSource = (c: HasHeaders): string => sourceSubject(c.req.header("CF-Connecting-IP"));
