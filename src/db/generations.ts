import { storedCoverage, type Activation, type Coverage } from "./coverage";

/**
 * Generations of datasets whose rows carry one (company registers, address registers): `dataset_generations` names the
 * one answers read (`active`; absent: 0, rows loaded by hand) and the one a refresh is writing (`staging`). Shared by
 * the products' generation tables (src/products/entity/refresh.ts, src/products/address/refresh.ts).
 */

/** The generation answers read, with the `datasets` row's records and version (the sanity bounds' reference). */
export const currentGeneration = (db: D1Database, name: string) =>
  db
    .prepare(
      "SELECT coalesce(g.active, 0) AS generation, d.records, d.version FROM datasets d LEFT JOIN " +
        "dataset_generations g ON g.name = d.name WHERE d.name = ?",
    )
    .bind(name)
    .first<{ generation: number; records: number; version: string }>();

/** Reserves a new generation beside the active one (an unfinished earlier one is left to the sweep). */
export async function beginGeneration(db: D1Database, name: string): Promise<number> {
  const row = await db
    .prepare(
      `INSERT INTO dataset_generations (name, active, staging) VALUES (?1, 0, 1)
       ON CONFLICT (name) DO UPDATE SET staging = MAX(active, COALESCE(staging, 0)) + 1 RETURNING staging`,
    )
    .bind(name)
    .first<{ staging: number }>();
  return row!.staging;
}

/**
 * Makes `generation` the one answers read and lists the dataset at `version` with `coverage`; the first statement
 * changes nothing when another import replaced the staged generation (the engine then fails the run).
 */
export const activateGeneration = (
  db: D1Database,
  name: string,
  { generation, version, records, now, coverage }: Activation,
) => [
  db
    .prepare("UPDATE dataset_generations SET active = staging, staging = NULL WHERE name = ?1 AND staging = ?2")
    .bind(name, generation),
  listActiveGeneration(db, "dataset_generations", { name, generation, version, records, now, coverage }),
];

/** A dataset's generation as `datasets` lists it once answers read it. */
export interface GenerationListing {
  name: string;
  generation: number;
  version: string;
  records: number;
  now: number;
  coverage: Coverage;
}

/**
 * Lists the dataset at `version` with `coverage`, only if `generation` is the active one in `from` (the shared
 * generations table, or IP's own): an import another one replaced lists nothing.
 */
export const listActiveGeneration = (
  db: D1Database,
  from: "dataset_generations" | "ip_datasets",
  { name, generation, version, records, now, coverage }: GenerationListing,
) =>
  db
    .prepare(
      `INSERT INTO datasets (name, version, records, loaded_at, coverage) SELECT ?1, ?3, ?4, ?5, ?6
        FROM ${from} WHERE name = ?1 AND active = ?2
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, records = excluded.records,
         loaded_at = excluded.loaded_at, coverage = excluded.coverage`,
    )
    .bind(name, generation, version, records, now, storedCoverage(coverage));
