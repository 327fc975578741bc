import { cidrContains, formatCidr, parseCidr, type Cidr, type IpAddress } from "./ip-address";
import registry from "./special-purpose-addresses.json";

/**
 * The one table of special-purpose addresses (`special-purpose-addresses.json`: the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries plus the non-unicast blocks of the IANA address-space registries). The webhook SSRF guard, the
 * SMTP sidecar's guard (workers/smtp-sidecar/address-guard.mjs reads the same file) and the IP product all decide
 * with it, by these rules:
 *
 * 1. IPv4-mapped IPv6 (::ffff:0:0/96) is the IPv4 address it carries.
 * 2. The most specific block holding the address decides (IANA: "unless allowed by a more specific allocation").
 * 3. A block that embeds IPv4 (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32 server and inverted client) is
 *    reserved when an embedded IPv4 address is; otherwise it is what its `globally_reachable` says, N/A counting as
 *    reachable only for these embedding blocks.
 * 4. Any other block is reserved unless IANA marks it globally reachable; an address in no block is public.
 */
export interface SpecialRange {
  cidr: string;
  name: string;
  rfc: string;
  registry: string;
  source: boolean | null;
  destination: boolean | null;
  forwardable: boolean | null;
  /** null where IANA says N/A. */
  globally_reachable: boolean | null;
  reserved_by_protocol: boolean | null;
  terminated?: string;
  maps_ipv4?: boolean;
  embeds_ipv4?: { bit: number; inverted?: boolean }[];
}

export const SPECIAL_RANGES = registry.ranges as SpecialRange[];
export const SPECIAL_RANGES_VERSION = registry.version;

interface Block {
  range: SpecialRange;
  cidr: Cidr;
}

/** Parsed once, on first use rather than at startup; the mapped block is rule 1, never matched as a block. */
let blocks: Block[] | undefined;
const specialBlocks = () =>
  (blocks ??= SPECIAL_RANGES.filter((range) => !range.maps_ipv4)
    .map((range) => ({ range, cidr: parseCidr(range.cidr)! }))
    .sort((a, b) => b.cidr.bits - a.cidr.bits));

export interface Classification {
  /** Not a globally reachable unicast address. */
  reserved: boolean;
  /** The most specific block holding the address (also when it is reachable, e.g. AS112), or null. */
  range: SpecialRange | null;
  /**
   * The block that makes the address reserved, as CIDR: for an embedded IPv4 the block it maps to, else `range.cidr`.
   */
  reservedRange: string | null;
  /** Its name, e.g. `Private-Use`, or `6to4 of Private-Use` for an embedded address. */
  reservedName: string | null;
}

const PUBLIC: Classification = { reserved: false, range: null, reservedRange: null, reservedName: null };

const MASK_32 = 0xffffffffn;

/** Where the embedded IPv4 block sits, when it is contiguous with the prefix (NAT64, 6to4, Teredo server). */
function embeddedCidr(block: Block, bit: number, inner: Cidr): string {
  if (bit !== block.cidr.bits) return block.range.cidr;
  const value = block.cidr.ip.value | (inner.ip.value << BigInt(128 - bit - 32));
  return formatCidr({ ip: { version: 6, value }, bits: bit + inner.bits });
}

/** Classifies a parsed address by the rules above. */
export function classifyAddress(ip: IpAddress): Classification {
  const block = specialBlocks().find((b) => cidrContains(b.cidr, ip));
  if (!block) return PUBLIC;
  const { range } = block;
  for (const rule of range.embeds_ipv4 ?? []) {
    const raw = (ip.value >> BigInt(128 - rule.bit - 32)) & MASK_32;
    const inner = classifyAddress({ version: 4, value: rule.inverted ? raw ^ MASK_32 : raw });
    if (inner.reserved) {
      const innerCidr = parseCidr(inner.reservedRange!)!;
      return {
        reserved: true,
        range,
        reservedRange: rule.inverted ? range.cidr : embeddedCidr(block, rule.bit, innerCidr),
        reservedName: `${range.name} of ${inner.reservedName}`,
      };
    }
  }
  const reachable =
    range.globally_reachable === true || (range.globally_reachable === null && Boolean(range.embeds_ipv4));
  return reachable
    ? { ...PUBLIC, range }
    : { reserved: true, range, reservedRange: range.cidr, reservedName: range.name };
}

const LOOPBACK = new Set(["127.0.0.0/8", "::1/128"]);

export const isLoopback = (ip: IpAddress) => LOOPBACK.has(classifyAddress(ip).range?.cidr ?? "");
