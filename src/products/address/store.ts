import { and, eq, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import type { Database } from "../../db/client";
import { readCoverage, type Coverage } from "../../db/coverage";
import { datasets } from "../../db/schema";
import { addressPostcodes, addressStreets } from "./tables";
import { ADDRESS_DATASET_NAMES, type AddressDatasetName } from "./datasets";
import type { PostcodeRow, StreetRow } from "./records";
import { placeKey, streetKey } from "./names";
import { INDEX_KEY } from "./autocomplete/index-rows";

/**
 * What the address product keeps in D1: postcode and street rows of the reference datasets, and which datasets are
 * installed (`datasets`). D1 binds at most 100 parameters a statement, which sizes every chunk below.
 */

/**
 * The generation answers read of the dataset a column (or value) names: its `dataset_generations` row, which a refresh
 * switches in one statement (src/products/address/refresh.ts), else 0 (rows loaded by hand before any refresh).
 */
export const activeGeneration = (dataset: SQL | string) =>
  sql`coalesce((SELECT active FROM dataset_generations WHERE name = ${dataset}), 0)`;

/**
 * Rows of these datasets in the generation answers read of each: a row-value IN on the two columns the address tables'
 * primary keys start with (migrations/0033_reference_keys.sql), so each (dataset, generation) pair is one range of
 * the key. A generation computed from the row's own dataset (`activeGeneration` of the column) could not bound it.
 */
export const inActiveGenerations = (table: { dataset: AnyColumn; generation: AnyColumn }, names: readonly string[]) =>
  sql`(${table.dataset}, ${table.generation}) IN (SELECT value, coalesce((SELECT active FROM dataset_generations
    WHERE name = value), 0) FROM json_each(${JSON.stringify(names)}))`;

export type Installed = Map<AddressDatasetName, { version: string; coverage: Coverage }>;

/** Installed datasets, their versions and coverage; a dataset whose import never completed is not installed. */
export async function installedDatasets(db: Database): Promise<Installed> {
  const rows = await db
    .select({ name: datasets.name, version: datasets.version, coverage: datasets.coverage })
    .from(datasets)
    .where(inArray(datasets.name, [...ADDRESS_DATASET_NAMES]));
  return new Map(
    rows.map((r) => [r.name as AddressDatasetName, { version: r.version, coverage: readCoverage(r.coverage) }]),
  );
}

export type StoredPostcode = typeof addressPostcodes.$inferSelect;

export const placeOf = (country: string, postcode: string) => `${country}|${postcode}`;

/** Every stored row of these (country, postcode) places, by place. */
export async function findPostcodes(
  db: Database,
  places: { country: string; postcode: string }[],
): Promise<Map<string, StoredPostcode[]>> {
  const byCountry = new Map<string, Set<string>>();
  for (const p of places) byCountry.set(p.country, (byCountry.get(p.country) ?? new Set()).add(p.postcode));
  const reads = [...byCountry].flatMap(([country, postcodes]) =>
    chunks([...postcodes], MAX_PARAMS - 10).map((part) =>
      db
        .select()
        .from(addressPostcodes)
        .where(
          and(
            inActiveGenerations(addressPostcodes, ADDRESS_DATASET_NAMES),
            eq(addressPostcodes.country, country),
            inArray(addressPostcodes.postcode, part),
          ),
        )
        // A place's rows in the order they were read before the key led with the dataset.
        .orderBy(addressPostcodes.postcode, addressPostcodes.dataset, addressPostcodes.localityKey),
    ),
  );
  const found = new Map<string, StoredPostcode[]>();
  for (const row of (await Promise.all(reads)).flat()) {
    const place = placeOf(row.country, row.postcode);
    found.set(place, [...(found.get(place) ?? []), row]);
  }
  return found;
}

/** Which of these street keys a street dataset lists in these postcodes of one country: `postcode|key` entries. */
export async function findStreets(
  db: Database,
  country: string,
  postcodes: string[],
  keys: string[],
): Promise<Set<string>> {
  const uniquePostcodes = [...new Set(postcodes)];
  const keyChunks = chunks([...new Set(keys)], MAX_PARAMS - 10 - Math.min(uniquePostcodes.length, 40));
  const reads = chunks(uniquePostcodes, 40).flatMap((part) =>
    keyChunks.map((keyPart) =>
      db
        .select({ postcode: addressStreets.postcode, key: addressStreets.streetKey })
        .from(addressStreets)
        .where(
          and(
            inActiveGenerations(addressStreets, ADDRESS_DATASET_NAMES),
            eq(addressStreets.country, country),
            inArray(addressStreets.postcode, part),
            inArray(addressStreets.streetKey, keyPart),
          ),
        ),
    ),
  );
  return new Set((await Promise.all(reads)).flat().map((r) => `${r.postcode}|${r.key}`));
}

/** The streets listed in one postcode, by name, at most `limit` + 1 (the caller tells whether the list was cut). */
export function listStreets(
  db: Database,
  asked: { country: string; postcode: string; datasetNames: string[]; limit: number },
) {
  const { country, postcode, datasetNames, limit } = asked;
  return db
    .selectDistinct({
      street: addressStreets.street,
      locality: addressStreets.locality,
      dataset: addressStreets.dataset,
    })
    .from(addressStreets)
    .where(
      and(
        inActiveGenerations(addressStreets, datasetNames),
        eq(addressStreets.country, country),
        eq(addressStreets.postcode, postcode),
      ),
    )
    .orderBy(addressStreets.streetKey, addressStreets.dataset)
    .limit(limit + 1);
}

// Bound parameters per row (the generation subquery binds the dataset once more).
const POSTCODE_COLUMNS = 13;
const STREET_COLUMNS = 7;

/**
 * Inserts or replaces postcode rows of one dataset in the generation answers read: multi-row statements under D1's
 * parameter limit, one D1 batch.
 */
export async function upsertPostcodes(db: Database, dataset: AddressDatasetName, rows: PostcodeRow[]): Promise<void> {
  const values = rows.map((r) => ({
    country: r.country,
    postcode: r.postcode,
    dataset,
    generation: activeGeneration(dataset),
    localityKey: r.locality ? placeKey(r.locality) : "",
    locality: r.locality,
    region: r.region,
    regionCode: r.region_code,
    subregion: r.subregion,
    subregionCode: r.subregion_code,
    latitude: r.latitude,
    longitude: r.longitude,
    alias: r.alias,
  }));
  const statements = chunks(values, Math.floor(MAX_PARAMS / POSTCODE_COLUMNS)).map((part) =>
    db
      .insert(addressPostcodes)
      .values(part)
      .onConflictDoUpdate({
        target: [
          addressPostcodes.country,
          addressPostcodes.postcode,
          addressPostcodes.dataset,
          addressPostcodes.generation,
          addressPostcodes.localityKey,
        ],
        set: {
          locality: sql`excluded.locality`,
          region: sql`excluded.region`,
          regionCode: sql`excluded.region_code`,
          subregion: sql`excluded.subregion`,
          subregionCode: sql`excluded.subregion_code`,
          latitude: sql`excluded.latitude`,
          longitude: sql`excluded.longitude`,
          alias: sql`min(${addressPostcodes.alias}, excluded.alias)`,
        },
      }),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

export async function upsertStreets(db: Database, dataset: AddressDatasetName, rows: StreetRow[]): Promise<void> {
  const values = rows.map((r) => ({
    country: r.country,
    postcode: r.postcode,
    streetKey: streetKey(r.street),
    dataset,
    generation: activeGeneration(dataset),
    street: r.street,
    locality: r.locality,
  }));
  const statements = chunks(values, Math.floor(MAX_PARAMS / STREET_COLUMNS)).map((part) =>
    db
      .insert(addressStreets)
      .values(part)
      .onConflictDoUpdate({
        target: [
          addressStreets.country,
          addressStreets.postcode,
          addressStreets.streetKey,
          addressStreets.dataset,
          addressStreets.generation,
        ],
        set: { street: sql`excluded.street`, locality: sql`excluded.locality` },
      }),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

const DELETE_CHUNK = 20_000;

/** Each table's primary key (WITHOUT ROWID tables: rows are picked by it). */
export const ADDRESS_KEYS = {
  address_postcodes: "dataset, generation, country, postcode, locality_key",
  address_streets: "dataset, generation, country, postcode, street_key",
  address_premises: "dataset, generation, country, postcode, street_key, number",
  autocomplete_tokens: INDEX_KEY,
} as const;

/**
 * Uninstalls a dataset at once (its `datasets` row goes first, so answers stop citing it) and deletes its rows in
 * chunks until none are left or `budgetMs` has passed; `done` false asks the caller to repeat.
 */
export async function removeDataset(
  db: Database,
  dataset: AddressDatasetName,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  const started = Date.now();
  await db.delete(datasets).where(eq(datasets.name, dataset));
  let deleted = 0;
  for (const table of Object.keys(ADDRESS_KEYS) as (keyof typeof ADDRESS_KEYS)[]) {
    const key = sql.raw(ADDRESS_KEYS[table]);
    for (;;) {
      const result = await db.run(
        sql`DELETE FROM ${sql.identifier(table)} WHERE (${key}) IN (SELECT ${key} FROM ${sql.identifier(table)}
          WHERE dataset = ${dataset} LIMIT ${DELETE_CHUNK})`,
      );
      const changes = result.meta.changes ?? 0;
      deleted += changes;
      if (changes < DELETE_CHUNK) break;
      if (Date.now() - started > budgetMs) return { deleted, done: false };
    }
  }
  return { deleted, done: true };
}
