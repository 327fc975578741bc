import type { Activation } from "../../db/coverage";
import { listActiveGeneration } from "../../db/generations";
import { isSignalDataset, SIGNAL_DATASETS, type IpDatasetName, type RangeRow } from "./datasets";

/**
 * Loading IP datasets into D1 (the operator routes behind scripts/import-ip.mjs). An import is a generation: `begin`
 * reserves a new one, rows are written into it, `complete` makes it the one answers read and lists the dataset in
 * `datasets` (GET /status/data) in one batch, and `sweep` deletes every other generation's rows in bounded chunks. An
 * import that never completes is never read, and the next `begin` leaves its rows to the sweep.
 */

/** Where each dataset's rows live; list datasets share `ip_signal_ranges`, told apart by its `dataset` column. */
const TABLES: Record<IpDatasetName, { table: string; key: string; shared?: true }> = {
  "ip-country": { table: "ip_country_ranges", key: "start" },
  "ip-asn": { table: "ip_asn_ranges", key: "start" },
  "ip-city": { table: "ip_city_ranges", key: "start" },
  "ip-tor-exits": { table: "ip_tor_exits", key: "address" },
  ...(Object.fromEntries(
    SIGNAL_DATASETS.map((name) => [name, { table: "ip_signal_ranges", key: "start", shared: true }]),
  ) as Record<(typeof SIGNAL_DATASETS)[number], { table: string; key: string; shared: true }>),
};

export interface DatasetState {
  name: string;
  active: number | null;
  staging: number | null;
  version: string | null;
  records: number | null;
  loaded_at: number | null;
  /** The `datasets` row's (src/db/coverage.ts): where every dataset's coverage is recorded. */
  coverage: string | null;
}

export async function datasetStates(d1: D1Database): Promise<DatasetState[]> {
  return (
    await d1
      .prepare("SELECT i.*, d.coverage FROM ip_datasets i LEFT JOIN datasets d ON d.name = i.name ORDER BY i.name")
      .all<DatasetState>()
  ).results;
}

/** Reserves the next generation of `name` for an import and returns it. */
export async function beginImport(d1: D1Database, name: IpDatasetName): Promise<number> {
  const row = await d1
    .prepare(
      `INSERT INTO ip_datasets (name, staging) VALUES (?1, 1)
       ON CONFLICT (name) DO UPDATE SET staging = MAX(COALESCE(active, 0), COALESCE(staging, 0)) + 1
       RETURNING staging`,
    )
    .bind(name)
    .first<{ staging: number }>();
  return row!.staging;
}

const isStaging = async (d1: D1Database, name: IpDatasetName, generation: number) =>
  (await d1
    .prepare("SELECT 1 AS yes FROM ip_datasets WHERE name = ? AND staging = ?")
    .bind(name, generation)
    .first()) !== null;

const SIGNAL_INSERT = `INSERT INTO ip_signal_ranges (dataset, generation, start, end, label)
    SELECT ?3, ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
      FROM json_each(?2) WHERE true
    ON CONFLICT (dataset, generation, start) DO UPDATE SET end = excluded.end, label = excluded.label`;

const INSERTS: Record<Exclude<IpDatasetName, (typeof SIGNAL_DATASETS)[number]>, string> = {
  "ip-country": `INSERT INTO ip_country_ranges (generation, start, end, country)
    SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
      FROM json_each(?2) WHERE true
    ON CONFLICT (generation, start) DO UPDATE SET end = excluded.end, country = excluded.country`,
  "ip-asn": `INSERT INTO ip_asn_ranges (generation, start, end, asn, name)
    SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
      json_extract(value, '$[3]') FROM json_each(?2) WHERE true
    ON CONFLICT (generation, start) DO UPDATE SET end = excluded.end, asn = excluded.asn, name = excluded.name`,
  "ip-city": `INSERT INTO ip_city_ranges (generation, start, end, city, region, postal_code, latitude, longitude,
    accuracy_radius_km, country) SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'),
           json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'),
    json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'), json_extract(value,
      '$[8]') FROM json_each(?2) WHERE true ON CONFLICT (generation, start) DO UPDATE SET end = excluded.end,
        city = excluded.city, region = excluded.region, postal_code = excluded.postal_code,
      latitude = excluded.latitude, longitude = excluded.longitude,
        accuracy_radius_km = excluded.accuracy_radius_km, country = excluded.country`,
  "ip-tor-exits": "INSERT OR IGNORE INTO ip_tor_exits (generation, address) SELECT ?1, value FROM json_each(?2)",
};

/**
 * The statement writing rows (range rows, or exit addresses as keys) into a generation (the scheduled refresh's step).
 */
export const insertStatement = (
  d1: D1Database,
  name: IpDatasetName,
  generation: number,
  rows: RangeRow[] | string[],
) =>
  isSignalDataset(name)
    ? d1.prepare(SIGNAL_INSERT).bind(generation, JSON.stringify(rows), name)
    : d1.prepare(INSERTS[name]).bind(generation, JSON.stringify(rows));

/** Writes rows into a generation being imported; false when it is not. */
export async function insertRows(
  d1: D1Database,
  name: IpDatasetName,
  generation: number,
  rows: RangeRow[] | string[],
): Promise<boolean> {
  if (!(await isStaging(d1, name, generation))) return false;
  await insertStatement(d1, name, generation, rows).run();
  return true;
}

/** The generation answers read, with its record count and version; null when none is installed. */
export async function activeGeneration(
  d1: D1Database,
  name: IpDatasetName,
): Promise<{ generation: number; records: number; version: string } | null> {
  const row = await d1
    .prepare("SELECT active, records, version FROM ip_datasets WHERE name = ? AND active IS NOT NULL")
    .bind(name)
    .first<{ active: number; records: number; version: string }>();
  return row ? { generation: row.active, records: row.records ?? 0, version: row.version ?? "" } : null;
}

/**
 * The two statements of `completeImport`, for a caller that batches them with its own (the scheduled refresh): the
 * generation becomes the one answers read, and the dataset is listed at `version` with its `coverage` (what the file
 * holds, src/db/coverage.ts).
 */
export function activateStatements(
  d1: D1Database,
  name: IpDatasetName,
  { generation, version, records, now, coverage }: Activation,
): D1PreparedStatement[] {
  return [
    d1
      .prepare(
        "UPDATE ip_datasets SET active = staging, staging = NULL, version = ?3, records = ?4, loaded_at = ?5 WHERE " +
          "name = ?1 AND staging = ?2",
      )
      .bind(name, generation, version, records, now),
    listActiveGeneration(d1, "ip_datasets", { name, generation, version, records, now, coverage }),
  ];
}

/**
 * Makes the generation the one answers read and lists the dataset at `version` with its `coverage`; false when it is
 * not being imported.
 */
export async function completeImport(d1: D1Database, name: IpDatasetName, activation: Activation): Promise<boolean> {
  const [switched] = await d1.batch(activateStatements(d1, name, activation));
  return (switched?.meta.changes ?? 0) > 0;
}

/** Stops answers reading `name` at once; its rows are left to `sweep`. */
export async function uninstall(d1: D1Database, name: IpDatasetName): Promise<void> {
  await d1.batch([
    d1
      .prepare(
        "UPDATE ip_datasets SET active = NULL, staging = NULL, version = NULL, records = NULL, loaded_at = NULL " +
          "WHERE name = ?",
      )
      .bind(name),
    d1.prepare("DELETE FROM datasets WHERE name = ?").bind(name),
  ]);
}

const SWEEP_CHUNK = 20_000;

/**
 * Deletes rows of generations neither active nor being imported, in chunks, until none are left or `budgetMs` has
 * passed; `done` false asks the caller to repeat.
 */
export async function sweep(
  d1: D1Database,
  name: IpDatasetName,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  const { table, key, shared } = TABLES[name];
  const started = Date.now();
  const [columns, mine] = shared ? [`dataset, generation, ${key}`, "dataset = ?1 AND "] : [`generation, ${key}`, ""];
  const statement = d1.prepare(
    `DELETE FROM ${table} WHERE (${columns}) IN (
       SELECT ${columns} FROM ${table}
       WHERE ${mine}generation IS NOT (SELECT active FROM ip_datasets WHERE name = ?1) AND generation IS
         NOT (SELECT staging FROM ip_datasets WHERE name = ?1)
       LIMIT ?2)`,
  );
  let deleted = 0;
  for (;;) {
    const changes = (await statement.bind(name, SWEEP_CHUNK).run()).meta.changes ?? 0;
    deleted += changes;
    if (changes < SWEEP_CHUNK) return { deleted, done: true };
    if (Date.now() - started > budgetMs) return { deleted, done: false };
  }
}
