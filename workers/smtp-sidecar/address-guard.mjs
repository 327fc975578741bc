// Which IP addresses the sidecar may dial. MX records are attacker-controlled input (anyone can publish an MX pointing
// at 10.0.0.1 or a cloud metadata address), so every resolved address is judged here before a socket is opened.
//
// The ranges are not listed here: they come from the one special-purpose table the Worker uses too
// (src/platform/special-purpose-addresses.json, the IANA IPv4 and IPv6 Special-Purpose Address Registries plus the
// non-unicast address-space blocks), judged by the same rules as src/platform/special-addresses.ts:
//   1. IPv4-mapped IPv6 (::ffff:0:0/96) is the IPv4 address it carries;
//   2. the most specific block holding the address decides;
//   3. a block embedding IPv4 (NAT64, 6to4, Teredo) is refused when an embedded IPv4 address would be;
//   4. any other block is refused unless IANA marks it globally reachable.
import { readFileSync } from "node:fs";
import { isIPv4, isIPv6 } from "node:net";

const TABLE_URL = new URL("../../src/platform/special-purpose-addresses.json", import.meta.url);

/**
 * @typedef {{ cidr: string, name: string, globally_reachable: boolean | null, maps_ipv4?: boolean, embeds_ipv4?: { bit:
 * number, inverted?: boolean }[] }} SpecialRange
 */

/** @type {{ ranges: SpecialRange[] }} */
const table = JSON.parse(readFileSync(TABLE_URL, "utf8"));

const MASK_32 = 0xffffffffn;

/** Blocks by family, most specific first, each with its prefix as a number of the family's width. */
const BLOCKS = { 4: [], 6: [] };
for (const range of table.ranges) {
  if (range.maps_ipv4) continue;
  const [address, bits] = range.cidr.split("/");
  const family = isIPv4(address) ? 4 : 6;
  BLOCKS[family].push({
    range,
    bits: Number(bits),
    value: family === 4 ? ipv4ToBigInt(address) : ipv6ToBigInt(address),
  });
}
for (const family of [4, 6]) BLOCKS[family].sort((a, b) => b.bits - a.bits);

const LOOPBACK = new Set(["127.0.0.0/8", "::1/128"]);

/**
 * The block of the table that decides `value`, and whether it refuses it.
 * @param {4 | 6} family
 * @param {bigint} value
 * @returns {{ range: SpecialRange | null, refused: boolean }}
 */
function judge(family, value) {
  const width = family === 4 ? 32n : 128n;
  const block = BLOCKS[family].find((b) => value >> (width - BigInt(b.bits)) === b.value >> (width - BigInt(b.bits)));
  if (!block) return { range: null, refused: false };
  for (const rule of block.range.embeds_ipv4 ?? []) {
    const raw = (value >> BigInt(128 - rule.bit - 32)) & MASK_32;
    if (judge(4, rule.inverted ? raw ^ MASK_32 : raw).refused) return { range: block.range, refused: true };
  }
  const reachable =
    block.range.globally_reachable === true ||
    (block.range.globally_reachable === null && Boolean(block.range.embeds_ipv4));
  return { range: block.range, refused: !reachable };
}

/**
 * Why `ip` must not be dialled, or null when it may be. Loopback (127.0.0.0/8, ::1) is allowed only with
 * `allowLoopback` (SIDECAR_ALLOW_LOOPBACK=1, development and tests); every other reserved block is always refused.
 * @param {string} ip
 * @param {{ allowLoopback?: boolean }} [options]
 * @returns {string | null}
 */
export function refusalReason(ip, { allowLoopback = false } = {}) {
  if (typeof ip !== "string" || ip.includes("%")) return "not a plain IP address";
  let family;
  let value;
  if (isIPv4(ip)) [family, value] = [4, ipv4ToBigInt(ip)];
  else if (isIPv6(ip)) [family, value] = [6, ipv6ToBigInt(ip)];
  else return "not an IP address";
  if (family === 6 && value >> 32n === 0xffffn) [family, value] = [4, value & MASK_32];
  const { range, refused } = judge(family, value);
  if (range && LOOPBACK.has(range.cidr)) return allowLoopback ? null : "loopback address";
  return refused ? `reserved address (${range.name}, ${range.cidr})` : null;
}

function ipv4ToBigInt(text) {
  return text.split(".").reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6ToBigInt(text) {
  let normalized = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = ipv4ToBigInt(text.slice(lastColon + 1));
    normalized = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [left, right] = normalized.split("::");
  const head = left ? left.split(":") : [];
  const tail = right ? right.split(":") : [];
  const groups = right === undefined ? head : [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
