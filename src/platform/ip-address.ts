/**
 * IP addresses and CIDR blocks as numbers. Pure functions with no imports, so Node scripts (the dataset importer) load
 * this file as it is.
 *
 * An address is `{version, value}`: a 32-bit value for IPv4, a 128-bit one for IPv6. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`) is read as the IPv4 address it carries, so both spellings are the same address everywhere.
 * Dataset tables key both families in one 128-bit space (IPv4 at ::ffff:0:0/96) as fixed-width hex, which sorts in
 * numeric order: see `rangeKey`.
 */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface Cidr {
  /** The network address (host bits cleared). */
  ip: IpAddress;
  bits: number;
}

const V4_MAPPED = 0xffffn << 32n;
const MASK_32 = 0xffffffffn;

export const widthOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    // A leading zero is refused: some parsers read `010` as octal, so its meaning is not agreed on.
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255 || (part.length > 1 && part.startsWith("0"))) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tail: bigint | null = null;
  if (text.includes(".")) {
    const lastColon = text.lastIndexOf(":");
    tail = parseV4(text.slice(lastColon + 1));
    if (tail === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  let value = 0n;
  for (const group of [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(Number.parseInt(group, 16));
  }
  return tail === null ? value : (value & ~MASK_32) | tail;
}

/**
 * An address as people write it: surrounding spaces and `[...]` are dropped; IPv6 in any case, compressed or not, with
 * a trailing dotted IPv4; IPv4-mapped IPv6 becomes IPv4. Zone indexes (`fe80::1%eth0`) and octal-looking IPv4 are not
 * addresses: null.
 */
export function parseIp(text: string): IpAddress | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1");
  if (!trimmed.includes(":")) {
    const v4 = parseV4(trimmed);
    return v4 === null ? null : { version: 4, value: v4 };
  }
  const v6 = parseV6(trimmed);
  if (v6 === null) return null;
  return v6 >> 32n === 0xffffn ? { version: 4, value: v6 & MASK_32 } : { version: 6, value: v6 };
}

/**
 * RFC 5952 text: dotted IPv4; IPv6 lower case, no leading zeros, the longest run of two or more zero groups as `::`.
 */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.length).join(":")}`;
}

/** The address in one 128-bit space: IPv4 at ::ffff:0:0/96, as IPv4-mapped IPv6 would carry it. */
export const toMapped = (ip: IpAddress): bigint => (ip.version === 4 ? V4_MAPPED | ip.value : ip.value);

/** The inverse of `toMapped`. */
export const fromMapped = (value: bigint): IpAddress =>
  value >> 32n === 0xffffn ? { version: 4, value: value & MASK_32 } : { version: 6, value };

/** Dataset key: the 128-bit value as 32 lower-case hex digits, so text order is numeric order in both families. */
export const rangeKey = (ip: IpAddress): string => toMapped(ip).toString(16).padStart(32, "0");

export const fromRangeKey = (key: string): IpAddress => fromMapped(BigInt(`0x${key}`));

export const isRangeKey = (key: string) => /^[0-9a-f]{32}$/.test(key);

const hostMask = (version: 4 | 6, bits: number) => (1n << BigInt(widthOf(version) - bits)) - 1n;

/**
 * `10.0.0.0/8`, `2001:db8::/32`, a bare address (a /32 or /128). Host bits are cleared: `10.1.2.3/8` is `10.0.0.0/8`.
 */
export function parseCidr(text: string): Cidr | null {
  const [address, bits, extra] = text.trim().split("/");
  if (extra !== undefined || !address) return null;
  const ip = parseIp(address);
  if (ip === null) return null;
  // A prefix length is written as a plain decimal: `/08` is refused as its octets' leading zeros are (read as octal
  // by some tools, it is not one reading everywhere).
  if (bits !== undefined && !/^(0|[1-9]\d{0,2})$/.test(bits)) return null;
  // `::ffff:10.0.0.0/104` is the IPv4 block 10.0.0.0/8.
  const mappedBits =
    address.includes(":") && ip.version === 4 && bits !== undefined
      ? Number(bits) - 96
      : Number(bits ?? widthOf(ip.version));
  if (mappedBits < 0 || mappedBits > widthOf(ip.version)) return null;
  return { ip: { version: ip.version, value: ip.value & ~hostMask(ip.version, mappedBits) }, bits: mappedBits };
}

export const formatCidr = (cidr: Cidr) => `${formatIp(cidr.ip)}/${cidr.bits}`;

/** First and last address of a block. */
export const cidrBounds = (cidr: Cidr): [IpAddress, IpAddress] => [
  cidr.ip,
  { version: cidr.ip.version, value: cidr.ip.value | hostMask(cidr.ip.version, cidr.bits) },
];

export const cidrContains = (cidr: Cidr, ip: IpAddress) =>
  cidr.ip.version === ip.version && (ip.value & ~hostMask(ip.version, cidr.bits)) === cidr.ip.value;

/** The fewest CIDR blocks that cover first..last exactly (both of one version), in order. */
export function rangeToCidrs(first: IpAddress, last: IpAddress): Cidr[] {
  const width = widthOf(first.version);
  const blocks: Cidr[] = [];
  let start = first.value;
  while (start <= last.value) {
    let size = start === 0n ? width : Math.min(width, trailingZeros(start));
    while (size > 0 && start + (1n << BigInt(size)) - 1n > last.value) size--;
    blocks.push({ ip: { version: first.version, value: start }, bits: width - size });
    start += 1n << BigInt(size);
  }
  return blocks;
}

/** The block of `rangeToCidrs(first, last)` that holds `ip`. */
export function blockHolding(first: IpAddress, last: IpAddress, ip: IpAddress): Cidr {
  const width = widthOf(ip.version);
  for (let bits = 0; bits <= width; bits++) {
    const base = ip.value & ~hostMask(ip.version, bits);
    if (base >= first.value && (base | hostMask(ip.version, bits)) <= last.value)
      return { ip: { version: ip.version, value: base }, bits };
  }
  return { ip, bits: width };
}

function trailingZeros(value: bigint): number {
  let n = 0;
  while ((value & 1n) === 0n && n < 128) {
    value >>= 1n;
    n++;
  }
  return n;
}
