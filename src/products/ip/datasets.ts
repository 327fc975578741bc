import type { Coverage } from "../../db/coverage";
import { formatIp, fromMapped, parseIp, rangeKey, type IpAddress } from "../../platform/ip-address";

/**
 * The IP datasets installed in D1 and the file formats they are imported from (scripts/import-ip.mjs streams a file
 * through these functions and posts rows to /admin/v1/ip-datasets). Pure functions: Node loads this file as it is.
 *
 * - `ip-country`: the `@ip-location-db` country CSV (`geo-whois-asn-country-ipv4.csv`, `-ipv6.csv`, or the `-num`
 *   editions): `ip_range_start,ip_range_end,country_code`.
 * - `ip-asn`: the `@ip-location-db/asn` CSV:
 * `ip_range_start,ip_range_end,autonomous_system_number,autonomous_system_organization`.
 * - `ip-city`: the `@ip-location-db/geolite2-city` CSV (`start,end,country_code,state1,state2,city,postcode,latitude,
 *   longitude,timezone`) or its mmdb edition (importers/city-mmdb.ts).
 * - `ip-tor-exits`: the Tor Project's exit list (`https://check.torproject.org/exit-addresses`: `ExitAddress <ip>
 * <time>`
 *   lines) or its bulk edition (one address a line).
 * - `hosting-*`, `vpn-*`, `proxy-*`: ranges published by a cloud provider, a VPN list or an open-proxy list
 * (importers/, one module per publisher),
 *   stored together in `ip_signal_ranges`, each dataset with its own generation.
 */
export const HOSTING_DATASETS = [
  "hosting-aws",
  "hosting-google-cloud",
  "hosting-azure",
  "hosting-oracle",
  "hosting-digitalocean",
  "hosting-cloudflare",
] as const;
export const VPN_DATASETS = ["vpn-x4bnet"] as const;
export const PROXY_DATASETS = ["proxy-firehol"] as const;
export const SIGNAL_DATASETS = [...HOSTING_DATASETS, ...VPN_DATASETS, ...PROXY_DATASETS] as const;
export type SignalDatasetName = (typeof SIGNAL_DATASETS)[number];
export const IP_DATASETS = ["ip-country", "ip-asn", "ip-city", "ip-tor-exits", ...SIGNAL_DATASETS] as const;
export type IpDatasetName = (typeof IP_DATASETS)[number];
export const RANGE_DATASETS = ["ip-country", "ip-asn", "ip-city"] as const;
export type RangeDatasetName = (typeof RANGE_DATASETS)[number];

export const isSignalDataset = (name: string): name is SignalDatasetName =>
  (SIGNAL_DATASETS as readonly string[]).includes(name);
export const isHostingDataset = (name: string) => (HOSTING_DATASETS as readonly string[]).includes(name);
export const isVpnDataset = (name: string) => (VPN_DATASETS as readonly string[]).includes(name);
export const isProxyDataset = (name: string) => (PROXY_DATASETS as readonly string[]).includes(name);

/** What a shipped sample covers (src/db/coverage.ts): a few rows in the publisher's format, never a negative. */
export const SAMPLE_COVERAGE: Coverage = {
  kind: "sample",
  note: "A few rows in the publisher's format shipped with the code, not the publisher's file.",
};

export const isIpDataset = (name: string): name is IpDatasetName => (IP_DATASETS as readonly string[]).includes(name);

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
export const familyFromFileName = (fileName: string): 4 | 6 | null =>
  /ipv6/i.test(fileName) ? 6 : /ipv4/i.test(fileName) ? 4 : null;

/** One record of a dataset's CSV file as a row's values; null when the record is not a usable row. */
export function recordValues(dataset: RangeDatasetName, record: string[]): (string | number | null)[] | null {
  if (dataset === "ip-city")
    return cityValues({
      country_code: record[2],
      state1: record[3],
      city: record[5],
      postcode: record[6],
      latitude: record[7],
      longitude: record[8],
    });
  if (dataset === "ip-country") {
    const country = (record[2] ?? "").trim().toUpperCase();
    return /^[A-Z]{2}$/.test(country) ? [country] : null;
  }
  const asn = (record[2] ?? "").trim().replace(/^AS/i, "");
  if (!/^\d{1,10}$/.test(asn) || Number(asn) > 4_294_967_295) return null;
  const name = (record[3] ?? "").trim();
  return [Number(asn), name === "" ? null : name];
}

/** A city record as the ip-location-db files spell it (CSV columns or the mmdb map); numbers may come as text. */
export interface CityRecord {
  country_code?: unknown;
  city?: unknown;
  state1?: unknown;
  postcode?: unknown;
  latitude?: unknown;
  longitude?: unknown;
  accuracy_radius?: unknown;
}

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
const number = (value: unknown) => {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * A city row's values `[city, region, postal_code, latitude, longitude, accuracy_radius_km, country]` (the country the
 * city file places the network in, which answers check against `ip-country`'s), coordinates rounded to 4
 * decimals (about 10 m: the files' float32 noise is not data); null when the record says nothing about a place
 * within a country (such networks get no row: the country comes from `ip-country`).
 */
export function cityValues(record: CityRecord): (string | number | null)[] | null {
  const round = (n: number | null) => (n === null ? null : Math.round(n * 10_000) / 10_000);
  const lat = number(record.latitude);
  const lon = number(record.longitude);
  const [city, region] = [text(record.city), text(record.state1)];
  // A record with neither city nor region carries the country's default point (the US one is a farm in Kansas):
  // not a location, so no coordinates.
  const coordinates =
    (city !== null || region !== null) && lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
  const country = text(record.country_code)?.toUpperCase() ?? null;
  const values = [
    city,
    region,
    text(record.postcode),
    coordinates ? round(lat) : null,
    coordinates ? round(lon) : null,
    number(record.accuracy_radius),
    country && /^[A-Z]{2}$/.test(country) ? country : null,
  ];
  return city === null && region === null && values[2] === null ? null : values;
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
    return {
      version: this.version,
      open: open.map(([start, end, values]) => ({ start, end, values })),
      cursor: this.cursor.toString(),
      lastStart: this.lastStart.toString(),
    };
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
