import { and, eq, inArray, sql, type AnyColumn } from "drizzle-orm";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import { database, familyDatabase, type Database } from "../../db/client";
import { readCoverage, type Coverage } from "../../db/coverage";
import { datasets } from "../../db/schema";
import { addressPostcodes, addressStreets } from "./tables";
import { ADDRESS_DATASET_NAMES, type AddressDatasetName } from "./datasets";
import type { PostcodeRow, StreetRow } from "./records";
import { placeKey, streetKey } from "./names";
import { INDEX_KEY } from "./autocomplete/index-rows";

/**
 * What the address product keeps in D1: postcode and street rows of the reference datasets (in `REFERENCE_ADDRESS`,
 * src/db/reference.ts), and which datasets are installed (`datasets`, in `DB`). D1 binds at most 100 parameters a
 * statement, which sizes every chunk below.
 */

/**
 * The generation answers read of each address dataset: its `dataset_generations` row in `DB`, which a refresh switches
 * in the batch that lists it (src/products/address/refresh.ts), else 0 (rows loaded by hand before any refresh). The
 * rows live in `REFERENCE_ADDRESS` (src/db/reference.ts), so the generations are read first and named in the row
 * reads.
 */
export type Generations = ReadonlyMap<string, number>;

/** The address rows' database and the generation answers read of each dataset. */
export interface AddressData {
  db: Database;
  generations: Generations;
}

export async function activeGenerations(db: Database): Promise<Generations> {
  // The shared generations table (src/db/generations.ts) is declared by the entity product, so read by name here.
  const rows = await db.all<{ name: string; active: number }>(
    sql`SELECT name, active FROM dataset_generations WHERE name IN (SELECT value FROM json_each(${JSON.stringify(
      ADDRESS_DATASET_NAMES,
    )}))`,
  );
  const active = new Map(rows.map((r) => [r.name, r.active]));
  return new Map(ADDRESS_DATASET_NAMES.map((name) => [name, active.get(name) ?? 0]));
}

/** Where the address rows are read and written: their database, with the generations read from `DB`. */
export async function addressData(env: Env): Promise<AddressData> {
  return { db: familyDatabase(env, "address"), generations: await activeGenerations(database(env)) };
}

/** The generation answers read of one dataset. */
export const activeGeneration = (data: AddressData, dataset: string) => data.generations.get(dataset) ?? 0;

/**
 * Rows of these datasets in the generation answers read of each: a row-value IN on the two columns the address tables'
 * primary keys start with (migrations-address/0000_address.sql), so each (dataset, generation) pair is one range of
 * the key.
 */
export const inActiveGenerations = (
  table: { dataset: AnyColumn; generation: AnyColumn },
  data: AddressData,
  names: readonly string[],
) =>
  sql`(${table.dataset}, ${table.generation}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${JSON.stringify(
    names.map((name) => [name, activeGeneration(data, name)]),
  )}))`;

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
  data: AddressData,
  places: { country: string; postcode: string }[],
): Promise<Map<string, StoredPostcode[]>> {
  const byCountry = new Map<string, Set<string>>();
  for (const p of places) byCountry.set(p.country, (byCountry.get(p.country) ?? new Set()).add(p.postcode));
  const reads = [...byCountry].flatMap(([country, postcodes]) =>
    chunks([...postcodes], MAX_PARAMS - 10).map((part) =>
      data.db
        .select()
        .from(addressPostcodes)
        .where(
          and(
            inActiveGenerations(addressPostcodes, data, ADDRESS_DATASET_NAMES),
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
  data: AddressData,
  country: string,
  postcodes: string[],
  keys: string[],
): Promise<Set<string>> {
  const uniquePostcodes = [...new Set(postcodes)];
  const keyChunks = chunks([...new Set(keys)], MAX_PARAMS - 10 - Math.min(uniquePostcodes.length, 40));
  const reads = chunks(uniquePostcodes, 40).flatMap((part) =>
    keyChunks.map((keyPart) =>
      data.db
        .select({ postcode: addressStreets.postcode, key: addressStreets.streetKey })
        .from(addressStreets)
        .where(
          and(
            inActiveGenerations(addressStreets, data, ADDRESS_DATASET_NAMES),
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
  data: AddressData,
  asked: { country: string; postcode: string; datasetNames: string[]; limit: number },
) {
  const { country, postcode, datasetNames, limit } = asked;
  return data.db
    .selectDistinct({
      street: addressStreets.street,
      locality: addressStreets.locality,
      dataset: addressStreets.dataset,
    })
    .from(addressStreets)
    .where(
      and(
        inActiveGenerations(addressStreets, data, datasetNames),
        eq(addressStreets.country, country),
        eq(addressStreets.postcode, postcode),
      ),
    )
    .orderBy(addressStreets.streetKey, addressStreets.dataset)
    .limit(limit + 1);
}

// Bound parameters per row.
const POSTCODE_COLUMNS = 13;
const STREET_COLUMNS = 7;

/**
 * Inserts or replaces postcode rows of one dataset in the generation answers read: multi-row statements under D1's
 * parameter limit, one D1 batch.
 */
export async function upsertPostcodes(
  data: AddressData,
  dataset: AddressDatasetName,
  rows: PostcodeRow[],
): Promise<void> {
  const values = rows.map((r) => ({
    country: r.country,
    postcode: r.postcode,
    dataset,
    generation: activeGeneration(data, dataset),
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
    data.db
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
  if (first) await data.db.batch([first, ...rest]);
}

export async function upsertStreets(data: AddressData, dataset: AddressDatasetName, rows: StreetRow[]): Promise<void> {
  const values = rows.map((r) => ({
    country: r.country,
    postcode: r.postcode,
    streetKey: streetKey(r.street),
    dataset,
    generation: activeGeneration(data, dataset),
    street: r.street,
    locality: r.locality,
  }));
  const statements = chunks(values, Math.floor(MAX_PARAMS / STREET_COLUMNS)).map((part) =>
    data.db
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
  if (first) await data.db.batch([first, ...rest]);
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
  env: Env,
  dataset: AddressDatasetName,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  const started = Date.now();
  await database(env).delete(datasets).where(eq(datasets.name, dataset));
  const db = familyDatabase(env, "address");
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
