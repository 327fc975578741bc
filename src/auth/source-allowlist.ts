/** IPv4/IPv6 addresses and CIDR ranges as 128-bit numbers; IPv4 (and IPv4-mapped IPv6) lives in ::ffff:0:0/96. */
const V4_MAPPED = 0xffffn << 32n;

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255 || (part.length > 1 && part.startsWith("0"))) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right];
  let value = 0n;
  for (const group of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  if (tailV4 !== null) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

/** Parses an address to its 128-bit form, folding IPv4-mapped IPv6 onto IPv4 so both spellings match the same rules. */
export function parseIp(text: string): bigint | null {
  const trimmed = text.trim().replace(/^\[|\]$/g, "");
  if (trimmed.includes(":")) return parseV6(trimmed);
  const v4 = parseV4(trimmed);
  return v4 === null ? null : V4_MAPPED | v4;
}

interface Range {
  base: bigint;
  mask: bigint;
}

/** `1.2.3.4`, `10.0.0.0/8`, `2001:db8::/32`; null when malformed. */
export function parseRange(entry: string): Range | null {
  const [address, bits, extra] = entry.trim().split("/");
  if (extra !== undefined || !address) return null;
  const ip = parseIp(address);
  if (ip === null) return null;
  const isV4 = !address.includes(":");
  const width = isV4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  const prefix = bits === undefined ? width : Number(bits);
  if (prefix > width) return null;
  const hostBits = BigInt(width - prefix);
  const mask = ((1n << 128n) - 1n) ^ ((1n << hostBits) - 1n);
  return { base: ip & mask, mask };
}

export function isAllowedSource(allowlist: readonly string[], source: string | undefined): boolean {
  const ip = source ? parseIp(source) : null;
  if (ip === null) return false;
  return allowlist.some((entry) => {
    const range = parseRange(entry);
    return range !== null && (ip & range.mask) === range.base;
  });
}
