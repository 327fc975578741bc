import { readCoverage, type Coverage } from "../../db/coverage";
import type { IpDatasetName } from "./datasets";
import type { IpResult } from "./result";

/**
 * What IP answers read from D1, each in as few round trips as possible: one batch per lookup call, whatever the list.
 * Range lookups go through `json_each` (one bound parameter for up to 1,000 keys; D1 binds at most 100) and each key is
 * one index seek: the last row of the active generation whose start <= key, kept when its end >= key.
 */

export interface InstalledDataset {
  name: IpDatasetName;
  active: number;
  version: string;
  coverage: Coverage;
}

type InstalledRow = Omit<InstalledDataset, "coverage"> & { coverage: string | null };

/** An `ip-city` row's values, named as the answer names them. */
export type CityHit = Pick<
  IpResult,
  "city" | "region" | "postal_code" | "latitude" | "longitude" | "accuracy_radius_km"
>;

export interface RangeHit {
  country: { start: string; end: string; country: string } | null;
  asn: { start: string; end: string; asn: number; name: string | null } | null;
  /** With the country the city file places the network in (answers check it against `ip-country`'s). */
  city: (CityHit & { country: string | null }) | null;
  tor: boolean;
  /** The list datasets (hosting-*, vpn-*) holding the address, with the provider each names. */
  signals: { dataset: string; label: string | null }[];
}

export interface StoredList {
  id: number;
  name: string;
  kind: "allow" | "deny";
  ranges: [string, string][];
  asns: number[];
  updatedAt: number;
}

const seek = (table: string, generation: string) =>
  `(SELECT s.start FROM ${table} s WHERE s.generation = ${generation} AND s.start <= q.k ORDER BY s.start DESC LIMIT ` +
  `1)`;

const LOOKUP = `
WITH g AS (SELECT (SELECT active FROM ip_datasets WHERE name = 'ip-country') AS cg,
                  (SELECT active FROM ip_datasets WHERE name = 'ip-asn') AS ag,
                  (SELECT active FROM ip_datasets WHERE name = 'ip-tor-exits') AS tg,
                  (SELECT active FROM ip_datasets WHERE name = 'ip-city') AS yg),
     q AS (SELECT key AS i, value AS k FROM json_each(?1))
SELECT q.i AS i, c.start AS c_start, c.end AS c_end, c.country AS country,
       a.start AS a_start, a.end AS a_end, a.asn AS asn, a.name AS as_name,
       y.start AS y_start, y.city AS city, y.region AS region, y.postal_code AS postal_code, y.latitude AS latitude,
       y.longitude AS longitude, y.accuracy_radius_km AS accuracy_radius_km, y.country AS y_country,
       EXISTS (SELECT 1 FROM ip_tor_exits t WHERE t.generation = g.tg AND t.address = q.k) AS tor
FROM q CROSS JOIN g
LEFT JOIN ip_country_ranges c ON c.generation = g.cg AND c.start = ${seek("ip_country_ranges", "g.cg")} AND c.end >= q.k
LEFT JOIN ip_asn_ranges a ON a.generation = g.ag AND a.start = ${seek("ip_asn_ranges", "g.ag")} AND a.end >= q.k
LEFT JOIN ip_city_ranges y ON y.generation = g.yg AND y.start = ${seek("ip_city_ranges", "g.yg")} AND y.end >= q.k`;

/**
 * Every list dataset (hosting-*, vpn-*, proxy-*) holding each key: one seek per key and installed list, in the list's
 * own rows.
 */
const SIGNALS = `
WITH d AS (SELECT name, active FROM ip_datasets WHERE active IS NOT NULL AND (name LIKE 'hosting-%' OR name
     LIKE 'vpn-%' OR name LIKE 'proxy-%')), q AS (SELECT key AS i, value AS k FROM json_each(?1))
SELECT q.i AS i, d.name AS dataset, r.label AS label
FROM q CROSS JOIN d
JOIN ip_signal_ranges r ON r.dataset = d.name AND r.generation = d.active AND r.end >= q.k
  AND r.start = (SELECT s.start FROM ip_signal_ranges s WHERE s.dataset = d.name AND s.generation = d.active
    AND s.start <= q.k ORDER BY s.start DESC LIMIT 1)
ORDER BY q.i, d.name`;

interface LookupRow extends CityHit {
  i: number;
  c_start: string | null;
  c_end: string | null;
  country: string | null;
  a_start: string | null;
  a_end: string | null;
  asn: number | null;
  as_name: string | null;
  y_start: string | null;
  y_country: string | null;
  tor: number;
}

interface ListRow {
  id: number;
  name: string;
  kind: "allow" | "deny";
  ranges: string;
  asns: string;
  updated_at: number;
}

// Coverage lives on the `datasets` row `completeImport` writes with the switch (src/db/coverage.ts).
const INSTALLED = `SELECT i.name, i.active, i.version, d.coverage FROM ip_datasets i LEFT JOIN datasets d
  ON d.name = i.name
  WHERE i.active IS NOT NULL`;

/**
 * The installed datasets, the rows holding each key, and, when there is an account, its IP lists, in one batch (its
 * feedback lives in its object: src/products/ip/lookup.ts reads it beside this). `keys` are
 * `rangeKey`s; answers come back in the same order.
 */
export async function readRanges(d1: D1Database, keys: string[], accountId: string | null) {
  // Seeks in key order touch neighbouring index pages one after another: fewer page reads on a large table.
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const sortedKeys = JSON.stringify(order.map((i) => keys[i]));
  const statements = [d1.prepare(INSTALLED), d1.prepare(LOOKUP).bind(sortedKeys), d1.prepare(SIGNALS).bind(sortedKeys)];
  if (accountId) {
    statements.push(
      d1
        .prepare("SELECT id, name, kind, ranges, asns, updated_at FROM ip_lists WHERE account_id = ? ORDER BY id")
        .bind(accountId),
    );
  }
  const [installed, hits, signals, lists] = await d1.batch(statements);
  const hitAt: RangeHit[] = keys.map(() => ({ country: null, asn: null, city: null, tor: false, signals: [] }));
  for (const row of (hits?.results ?? []) as LookupRow[]) {
    hitAt[order[row.i]!] = {
      country: row.c_start ? { start: row.c_start, end: row.c_end!, country: row.country! } : null,
      asn: row.a_start ? { start: row.a_start, end: row.a_end!, asn: row.asn!, name: row.as_name } : null,
      city: row.y_start
        ? {
            city: row.city,
            region: row.region,
            postal_code: row.postal_code,
            latitude: row.latitude,
            longitude: row.longitude,
            accuracy_radius_km: row.accuracy_radius_km,
            country: row.y_country,
          }
        : null,
      tor: row.tor === 1,
      signals: [],
    };
  }
  for (const row of (signals?.results ?? []) as { i: number; dataset: string; label: string | null }[])
    hitAt[order[row.i]!]!.signals.push({ dataset: row.dataset, label: row.label });
  return {
    installed: installedMap((installed?.results ?? []) as InstalledRow[]),
    hits: hitAt,
    lists: ((lists?.results ?? []) as ListRow[]).map(
      (r): StoredList => ({
        id: r.id,
        name: r.name,
        kind: r.kind,
        ranges: JSON.parse(r.ranges) as [string, string][],
        asns: JSON.parse(r.asns) as number[],
        updatedAt: r.updated_at,
      }),
    ),
  };
}

const installedMap = (rows: InstalledRow[]) =>
  new Map(rows.map((r) => [r.name, { ...r, coverage: readCoverage(r.coverage) }]));

export interface AsnRange {
  start: string;
  end: string;
  name: string | null;
}

/** Every range of the active `ip-asn` generation announced by `asn`, in address order, with the dataset state. */
export async function asnRanges(d1: D1Database, asn: number) {
  const [installed, ranges] = await d1.batch([
    d1.prepare(INSTALLED),
    d1
      .prepare(
        "SELECT start, end, name FROM ip_asn_ranges WHERE generation = (SELECT active FROM ip_datasets WHERE name = " +
          "'ip-asn') AND asn = ? ORDER BY start",
      )
      .bind(asn),
  ]);
  return {
    installed: installedMap((installed?.results ?? []) as InstalledRow[]),
    ranges: (ranges?.results ?? []) as AsnRange[],
  };
}

/** The country ranges holding each of these keys (the first addresses of an ASN's ranges), in order. */
export async function countriesAt(d1: D1Database, keys: string[]): Promise<(string | null)[]> {
  if (!keys.length) return [];
  const { hits } = await readRanges(d1, keys, null);
  return hits.map((h) => h.country?.country ?? null);
}

export interface OverlapRow {
  start: string;
  end: string;
  value: string | number;
  name: string | null;
}

const overlapping = (table: string, dataset: string, value: string, name: string) => `
SELECT start, end, ${value} AS value, ${name} AS name FROM ${table}
WHERE generation = (SELECT active FROM ip_datasets WHERE name = '${dataset}') AND start <= ?2 AND end >= ?1
  AND start >= COALESCE((SELECT s.start FROM ${table} s WHERE s.generation = (SELECT active FROM ip_datasets
    WHERE name = '${dataset}') AND s.start <= ?1 ORDER BY s.start DESC LIMIT 1), ?1)
ORDER BY start LIMIT ?3`;

/**
 * The rows of both range tables that overlap first..last (keys), at most `limit` of each, in address order. Rows do
 * not overlap each other, so the scan starts at the last row starting at or before `first`.
 */
export async function overlappingRanges(d1: D1Database, first: string, last: string, limit: number) {
  const [installed, countries, asns] = await d1.batch([
    d1.prepare(INSTALLED),
    d1.prepare(overlapping("ip_country_ranges", "ip-country", "country", "NULL")).bind(first, last, limit),
    d1.prepare(overlapping("ip_asn_ranges", "ip-asn", "asn", "name")).bind(first, last, limit),
  ]);
  return {
    installed: installedMap((installed?.results ?? []) as InstalledRow[]),
    countries: (countries?.results ?? []) as OverlapRow[],
    asns: (asns?.results ?? []) as OverlapRow[],
  };
}
