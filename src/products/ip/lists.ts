import { cidrBounds, formatCidr, parseCidr, rangeKey } from "../../platform/ip-address";
import type { ListMatch } from "./result";
import type { StoredList } from "./store";

/**
 * Allow and deny lists (`/ip/lists`): named lists of addresses, CIDR blocks and AS numbers that every IP answer of the
 * account consults. Entries are written as the account wrote them and turned, once per write, into merged key ranges
 * and AS numbers, so an answer matches with a binary search.
 */
export const MAX_LISTS_PER_ACCOUNT = 10;
export const MAX_ENTRIES_PER_LIST = 1_000;

export interface ListMatchers {
  /** Canonical spelling of each entry: `192.0.2.1`, `10.0.0.0/8`, `2001:db8::/32`, `AS64496`. */
  entries: string[];
  ranges: [string, string][];
  asns: number[];
}

/**
 * An entry in its canonical spelling with what it matches, or null when it is neither an address, a block nor an AS.
 */
export function readEntry(entry: string | number): { text: string; range?: [string, string]; asn?: number } | null {
  const asn = typeof entry === "number" ? String(entry) : /^\s*AS\s?(\d{1,10})\s*$/i.exec(entry)?.[1];
  if (asn !== undefined) {
    const number = Number(asn);
    return Number.isInteger(number) && number >= 0 && number <= 4_294_967_295
      ? { text: `AS${number}`, asn: number }
      : null;
  }
  const cidr = typeof entry === "string" ? parseCidr(entry) : null;
  if (!cidr) return null;
  const [first, last] = cidrBounds(cidr);
  const width = cidr.ip.version === 4 ? 32 : 128;
  const text = cidr.bits === width ? formatCidr(cidr).replace(/\/\d+$/, "") : formatCidr(cidr);
  return { text, range: [rangeKey(first), rangeKey(last)] };
}

/** The matchers of a list's entries, or the positions of the entries that cannot be read. */
export function listMatchers(
  raw: (string | number)[],
): { ok: true; matchers: ListMatchers } | { ok: false; invalid: number[] } {
  const read = raw.map(readEntry);
  const invalid = read.flatMap((entry, i) => (entry ? [] : [i]));
  if (invalid.length) return { ok: false, invalid };
  const entries = [...new Set(read.map((e) => e!.text))];
  const asns = [...new Set(read.flatMap((e) => (e!.asn === undefined ? [] : [e!.asn])))].sort((a, b) => a - b);
  const sorted = read
    .flatMap((e) => (e!.range ? [e!.range] : []))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const ranges: [string, string][] = [];
  for (const [start, end] of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && start <= last[1]) last[1] = end > last[1] ? end : last[1];
    else ranges.push([start, end]);
  }
  return { ok: true, matchers: { entries, ranges, asns } };
}

/** Whether merged, sorted ranges hold `key` (binary search on the starts). */
function holds(ranges: [string, string][], key: string): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = ranges[mid]!;
    if (key < start) hi = mid - 1;
    else if (key > end) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The list an answer reports: a deny list that holds the address or its AS wins over an allow list (a deny is the
 * stronger statement), then the oldest list. Null when none holds it.
 */
export function matchList(
  lists: StoredList[],
  key: string | null,
  asn: number | null,
): (ListMatch & { updatedAt: number }) | null {
  const hits = lists.filter((l) => (key !== null && holds(l.ranges, key)) || (asn !== null && l.asns.includes(asn)));
  const hit = hits.find((l) => l.kind === "deny") ?? hits[0];
  return hit ? { id: hit.id, name: hit.name, kind: hit.kind, updatedAt: hit.updatedAt } : null;
}
