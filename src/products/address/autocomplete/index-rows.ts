import type { PostcodeRow, StreetRow } from "../records";
import { entrySearch, entryTokens, placeKey, streetKey } from "./normalise";

/**
 * Writes the autocomplete index (tables.ts) beside the address datasets' rows: the scheduled refresh
 * (src/products/address/refresh.ts) in the generation it stages, the operator import in generation 0. One statement per
 * chunk, entries and their tokens as one JSON parameter expanded by `json_each` (D1 binds at most 100 parameters).
 */

/** One suggestion-to-be: a street of a postcode, or a postcode with one of its places. */
interface Entry {
  c: string;
  k: "street" | "postcode";
  p: string;
  l: string;
  s: string;
  lo: string | null;
  r: string | null;
  q: string;
  t: string[];
}

const streetEntry = (row: StreetRow): Entry => {
  const key = streetKey(row.street);
  return {
    c: row.country,
    k: "street",
    p: row.postcode,
    l: row.street,
    s: key,
    lo: row.locality,
    r: null,
    q: entrySearch(key, row.postcode, row.locality),
    t: entryTokens(key, row.postcode),
  };
};

const postcodeEntry = (row: PostcodeRow): Entry => {
  const key = row.locality ? placeKey(row.locality) : "";
  return {
    c: row.country,
    k: "postcode",
    p: row.postcode,
    l: row.locality ?? "",
    s: "",
    lo: row.locality,
    r: row.region,
    q: entrySearch("", row.postcode, row.locality),
    t: entryTokens(key, row.postcode),
  };
};

/** Rows of one batch, and whether their dataset lists postcodes of its own (the BAN does not). */
export interface IndexedRows {
  streets?: readonly StreetRow[];
  postcodes?: readonly PostcodeRow[];
  /** Suggest the streets' places too (postcode and commune): a street register without a postcode list. */
  placesOfStreets: boolean;
}

const placeOfStreet = (row: StreetRow): PostcodeRow => ({
  country: row.country,
  postcode: row.postcode,
  locality: row.locality,
  region: null,
  region_code: null,
  subregion: null,
  subregion_code: null,
  latitude: null,
  longitude: null,
  alias: false,
});

/** The index entries of a batch of rows; an alias name (not shown in listings) is not suggested either. */
export const indexEntries = (rows: IndexedRows) => {
  const streets = rows.streets ?? [];
  const places = rows.placesOfStreets ? streets.filter((s) => s.locality).map(placeOfStreet) : [];
  const unique = new Map([...(rows.postcodes ?? []), ...places].map((p) => [`${p.postcode}|${p.locality}`, p]));
  return [...streets.map(streetEntry), ...[...unique.values()].filter((p) => !p.alias).map(postcodeEntry)];
};

const CHUNK = 1_000;

/** The dataset and generation index rows are written in. */
export interface IndexTarget {
  dataset: string;
  generation: number;
}

/**
 * The statements writing these entries' tokens in `generation` of `dataset` (the operator import's: the generation
 * answers read); none for no entries.
 */
export function indexStatements(db: D1Database, target: IndexTarget, entries: readonly Entry[]): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < entries.length; i += CHUNK)
    statements.push(
      db
        .prepare(
          `INSERT INTO autocomplete_tokens (country, token, kind, postcode, label, dataset, generation, street_key,
             locality, region, search)
           SELECT e.value ->> '$.c', t.value, e.value ->> '$.k', e.value ->> '$.p', e.value ->> '$.l', ?1,
             ?2,
             e.value ->> '$.s', e.value ->> '$.lo', e.value ->> '$.r', e.value ->> '$.q'
           FROM json_each(?3) e, json_each(e.value -> '$.t') t WHERE true ON CONFLICT DO NOTHING`,
        )
        .bind(target.dataset, target.generation, JSON.stringify(entries.slice(i, i + CHUNK))),
    );
  return statements;
}

/** Writes the tokens of these rows in the generation answers read (the operator import's rows loaded by hand). */
export async function indexRows(db: D1Database, target: IndexTarget, rows: IndexedRows): Promise<void> {
  const statements = indexStatements(db, target, indexEntries(rows));
  if (statements.length) await db.batch(statements);
}

/** The primary key's columns, by which the refresh's sweep and a dataset's removal pick rows. */
export const INDEX_KEY = "dataset, generation, country, token, kind, postcode, label";
