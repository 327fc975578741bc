// Which IP addresses the sidecar may dial. MX records are attacker-controlled input (anyone can publish an MX pointing
// at 10.0.0.1 or a cloud metadata address), so every resolved address is judged here before a socket is opened.
import { isIPv4, isIPv6 } from "node:net";

const cidr4 = (text, bits) => ({ base: ipv4ToInt(text), bits });
const cidr6 = (text, bits) => ({ base: ipv6ToBigInt(text), bits });

/** IPv4 ranges that are never dialled. 240.0.0.0/4 also covers the limited broadcast address 255.255.255.255. */
const REFUSED_V4 = [
  cidr4("0.0.0.0", 8),
  cidr4("10.0.0.0", 8),
  cidr4("100.64.0.0", 10),
  cidr4("169.254.0.0", 16),
  cidr4("172.16.0.0", 12),
  cidr4("192.0.0.0", 24),
  cidr4("192.0.2.0", 24),
  cidr4("192.168.0.0", 16),
  cidr4("198.18.0.0", 15),
  cidr4("198.51.100.0", 24),
  cidr4("203.0.113.0", 24),
  cidr4("224.0.0.0", 4),
  cidr4("240.0.0.0", 4),
];
const LOOPBACK_V4 = cidr4("127.0.0.0", 8);

/** IPv6 ranges that are never dialled. ::/96 (deprecated IPv4-compatible form) covers `::` itself. */
const REFUSED_V6 = [
  cidr6("::", 96),
  cidr6("fc00::", 7),
  cidr6("fe80::", 10),
  cidr6("ff00::", 8),
  cidr6("2001:db8::", 32),
  cidr6("64:ff9b::", 96),
];
const LOOPBACK_V6 = cidr6("::1", 128);
const MAPPED_V4 = cidr6("::ffff:0:0", 96);

/**
 * Why `ip` must not be dialled, or null when it may be. Loopback (127.0.0.0/8, ::1) is allowed only with
 * `allowLoopback` (SIDECAR_ALLOW_LOOPBACK=1, development and tests); every other private or reserved range is always
 * refused. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged by the IPv4 address it carries.
 * @param {string} ip
 * @param {{ allowLoopback?: boolean }} [options]
 * @returns {string | null}
 */
export function refusalReason(ip, { allowLoopback = false } = {}) {
  if (typeof ip !== "string" || ip.includes("%")) return "not a plain IP address";
  if (isIPv4(ip)) return refusalReasonV4(ipv4ToInt(ip), allowLoopback);
  if (!isIPv6(ip)) return "not an IP address";
  const value = ipv6ToBigInt(ip);
  if (inRange6(value, MAPPED_V4)) return refusalReasonV4(Number(value & 0xffffffffn), allowLoopback);
  if (inRange6(value, LOOPBACK_V6)) return allowLoopback ? null : "loopback address";
  return REFUSED_V6.some((range) => inRange6(value, range)) ? "private or reserved IPv6 address" : null;
}

/** @param {string} ip @param {{ allowLoopback?: boolean }} [options] */
export const isRefusedAddress = (ip, options) => refusalReason(ip, options) !== null;

function refusalReasonV4(value, allowLoopback) {
  if (inRange4(value, LOOPBACK_V4)) return allowLoopback ? null : "loopback address";
  return REFUSED_V4.some((range) => inRange4(value, range)) ? "private or reserved IPv4 address" : null;
}

function inRange4(value, { base, bits }) {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((value & mask) >>> 0) === ((base & mask) >>> 0);
}

function inRange6(value, { base, bits }) {
  const shift = BigInt(128 - bits);
  return value >> shift === base >> shift;
}

function ipv4ToInt(text) {
  return text.split(".").reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

function ipv6ToBigInt(text) {
  let normalized = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = ipv4ToInt(text.slice(lastColon + 1));
    normalized = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [left, right] = normalized.split("::");
  const head = left ? left.split(":") : [];
  const tail = right ? right.split(":") : [];
  const groups = right === undefined ? head : [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
