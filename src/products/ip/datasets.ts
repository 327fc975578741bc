import { formatIp, fromMapped, parseIp, rangeKey, type IpAddress } from "../../platform/ip-address";

/**
 * The IP datasets installed in D1 and the file formats they are imported from (scripts/import-ip.mjs streams a file
 * through these functions and posts rows to /admin/v1/ip-datasets). Pure functions: Node loads this file as it is.
 *
 * - `ip-country`: the `@ip-location-db` country CSV (`geo-whois-asn-country-ipv4.csv`, `-ipv6.csv`, or the `-num`
 *   editions): `ip_range_start,ip_range_end,country_code`.
 * - `ip-asn`: the `@ip-location-db/asn` CSV: `ip_range_start,ip_range_end,autonomous_system_number,autonomous_system_organization`.
 * - `ip-tor-exits`: the Tor Project's exit list (`https://check.torproject.org/exit-addresses`: `ExitAddress <ip> <time>`
 *   lines) or its bulk edition (one address a line).
 */
export const IP_DATASETS = ["ip-country", "ip-asn", "ip-tor-exits"] as const;
export type IpDatasetName = (typeof IP_DATASETS)[number];
export const RANGE_DATASETS = ["ip-country", "ip-asn"] as const;
export type RangeDatasetName = (typeof RANGE_DATASETS)[number];

export const isIpDataset = (name: string): name is IpDatasetName => (IP_DATASETS as readonly string[]).includes(name);
export const isRangeDataset = (name: string): name is RangeDatasetName => (RANGE_DATASETS as readonly string[]).includes(name);

/** A row as posted and stored: keys (`rangeKey`), then the dataset's values (`[country]` or `[asn, name]`). */
export type RangeRow = [start: string, end: string, ...values: (string | number | null)[]];

/**
 * Reads a range's ends as a file writes them: addresses, or decimal numbers in the `-num` editions, whose family the
 * file name gives (`...-ipv6-num.csv`). Null for anything else, or when the ends are not one family in order.
 */
export function readRange(startText: string, endText: string, family: 4 | 6 | null): [IpAddress, IpAddress] | null {
  const read = (text: string): IpAddress | null => {
    const value = text.trim();
    if (!/^\d+$/.test(value)) return parseIp(value);
    if (family === null) return null;
    const number = BigInt(value);
    if (number >= 1n << BigInt(family === 4 ? 32 : 128)) return null;
    return family === 4 ? { version: 4, value: number } : fromMapped(number);
  };
  const start = read(startText);
  const end = read(endText);
  if (!start || !end || start.version !== end.version || start.value > end.value) return null;
  return [start, end];
}

/** The family of a `-num` file from its name (`-ipv4-num.csv`, `-ipv6-num.csv`), null when the name does not say. */
export const familyFromFileName = (fileName: string): 4 | 6 | null => (/ipv6/i.test(fileName) ? 6 : /ipv4/i.test(fileName) ? 4 : null);

/** One record of a dataset's CSV file as a row's values; null when the record is not a usable row. */
export function recordValues(dataset: RangeDatasetName, record: string[]): (string | number | null)[] | null {
  if (dataset === "ip-country") {
    const country = (record[2] ?? "").trim().toUpperCase();
    return /^[A-Z]{2}$/.test(country) ? [country] : null;
  }
  const asn = (record[2] ?? "").trim().replace(/^AS/i, "");
  if (!/^\d{1,10}$/.test(asn) || Number(asn) > 4_294_967_295) return null;
  const name = (record[3] ?? "").trim();
  return [Number(asn), name === "" ? null : name];
}

export interface SavedFlattener {
  version: 4 | 6;
  open: { start: string; end: string; values: (string | number | null)[] }[];
  cursor: string;
  lastStart: string;
}

interface Open {
  start: bigint;
  end: bigint;
  values: (string | number | null)[];
}

/**
 * Turns a file's rows, sorted by start, into ranges that do not overlap: where rows overlap, the row that starts later
 * (the more specific one, as the published files nest a sub-range inside a wider one) answers for the addresses they
 * share, and the wider row keeps the rest. Streaming: only the rows still open are held. One flattener per file, since
 * the families are separate key spaces.
 */
export class RangeFlattener {
  private open: Open[] = [];
  private cursor = 0n;
  private lastStart = -1n;
  private readonly version: 4 | 6;

  constructor(version: 4 | 6) {
    this.version = version;
  }

  push(start: IpAddress, end: IpAddress, values: (string | number | null)[]): RangeRow[] {
    if (start.version !== this.version) throw new Error(`an IPv${start.version} range in an IPv${this.version} file`);
    if (start.value < this.lastStart) throw new Error(`the file is not sorted by range start (at ${formatIp(start)})`);
    this.lastStart = start.value;
    const out: RangeRow[] = [];
    while (this.top && this.top.end < start.value) this.closeTop(out);
    if (this.top && this.cursor < start.value) this.emit(out, this.top, this.cursor, start.value - 1n);
    this.cursor = start.value;
    this.open.push({ start: start.value, end: end.value, values });
    return out;
  }

  end(): RangeRow[] {
    const out: RangeRow[] = [];
    while (this.top) this.closeTop(out);
    return out;
  }

  /** The flattener's state as JSON values (the scheduled refresh stores it between steps), and back. */
  save(): SavedFlattener {
    const open = this.open.map((o) => [o.start.toString(), o.end.toString(), o.values] as const);
    return { version: this.version, open: open.map(([start, end, values]) => ({ start, end, values })), cursor: this.cursor.toString(), lastStart: this.lastStart.toString() };
  }

  static load(saved: SavedFlattener): RangeFlattener {
    const flattener = new RangeFlattener(saved.version);
    flattener.open = saved.open.map((o) => ({ start: BigInt(o.start), end: BigInt(o.end), values: o.values }));
    flattener.cursor = BigInt(saved.cursor);
    flattener.lastStart = BigInt(saved.lastStart);
    return flattener;
  }

  private get top(): Open | undefined {
    return this.open[this.open.length - 1];
  }

  private closeTop(out: RangeRow[]) {
    const top = this.open.pop()!;
    this.emit(out, top, this.cursor, top.end);
    this.cursor = top.end + 1n;
    while (this.top && this.top.end < this.cursor) this.open.pop();
  }

  private emit(out: RangeRow[], range: Open, from: bigint, to: bigint) {
    if (from > to) return;
    const key = (value: bigint) => rangeKey({ version: this.version, value });
    out.push([key(from), key(to), ...range.values]);
  }
}

/** One line of a Tor exit list: the address of an `ExitAddress` line, or a bare address (bulk list); else null. */
export function torExitAddress(line: string): IpAddress | null {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return null;
  const exit = /^ExitAddress\s+(\S+)/.exec(text);
  if (exit) return parseIp(exit[1]!);
  return /\s/.test(text) ? null : parseIp(text);
}

/** `2.3.2026061719` (an @ip-location-db package version) -> `2026-06-17`, the day its data was published. */
export function versionFromPackageVersion(version: string): string | null {
  const match = /\.(20\d{2})(\d{2})(\d{2})\d{0,2}$/.exec(version);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}
