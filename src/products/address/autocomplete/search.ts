import { ADDRESS_DATASET_NAMES, ADDRESS_DATASETS } from "../datasets";
import type { Generations } from "../store";
import { fold } from "../names";
import { drivingWord, placeKey, type Query } from "./normalise";

/**
 * The index read (tables.ts): one range of the primary key's B-tree for the query's driving word, the other words
 * matched against the entry's folded text, house numbers checked in `address_premises` by primary key. Only rows of
 * each dataset's active generation, of installed datasets, are read.
 */

export interface Hit {
  kind: "street" | "postcode";
  postcode: string;
  label: string;
  street_key: string;
  locality: string | null;
  region: string | null;
  dataset: string;
  premise: number;
}

/** Candidates read per query before ranking: enough for every tier of a typical prefix, bounded for a short one. */
const CANDIDATES = 200;
/** Above every character a token holds: `prefix || TOP` bounds the prefix's range (UTF-8 compares as bytes). */
const TOP = "\u{10FFFF}";

/**
 * One dataset's candidates (`?` + index: its name, the next: its active generation): its active generation's rows of
 * the prefix's range, in the key's order, at most CANDIDATES.
 */
const candidatesOf = (nameParam: string, generationParam: string, filters: string) =>
  `SELECT * FROM (SELECT t.country, t.token, t.kind, t.postcode, t.label, t.street_key, t.locality, t.region, t.dataset,
     t.generation FROM autocomplete_tokens t
   WHERE t.dataset = ${nameParam}
     AND t.generation = ${generationParam}
     AND t.country = ?1 AND t.token >= ?2 AND t.token < ?3 ${filters}
   ORDER BY t.token, t.kind, t.postcode, t.label LIMIT ${CANDIDATES})`;

/**
 * The entries whose tokens start with the query's driving word and whose text holds its other words: the first
 * CANDIDATES across the address datasets of the country in (token, kind, postcode, label, dataset) order. The key
 * leads with the dataset (migrations/0033_reference_keys.sql), so each dataset's range is read on its own, up to
 * CANDIDATES, and the union cut in that order: the candidates and their order are those of one range over all
 * datasets, as read before that key.
 */
export async function readHits(
  db: D1Database,
  asked: { country: string; query: Query; installed: Generations },
): Promise<Hit[]> {
  const { country, query, installed } = asked;
  const driving = drivingWord(query.words);
  if (!driving) return [];
  const others = query.words.filter((w) => w !== driving).slice(0, 8);
  const filters = others.map((_, i) => `AND (' ' || t.search) LIKE ?${i + 5}`).join(" ");
  // Only a dataset that covers the country holds its rows (the importers refuse others); at most two do, and D1 refuses
  // a compound SELECT of many terms (six were refused).
  // Installed ones only (their `datasets` rows and generations are in `DB`, src/db/reference.ts).
  const names = ADDRESS_DATASET_NAMES.filter(
    (name) => installed.has(name) && ADDRESS_DATASETS[name].countries.includes(country),
  );
  if (!names.length) return [];
  const first = others.length + 5;
  const union = names
    .map((_, i) => candidatesOf(`?${first + 2 * i}`, `?${first + 2 * i + 1}`, filters))
    .join(" UNION ALL ");
  const { results } = await db
    .prepare(
      `SELECT t.kind, t.postcode, t.label, t.street_key, t.locality, t.region, t.dataset,
         CASE WHEN ?4 IS NOT NULL AND t.kind = 'street' THEN EXISTS (SELECT 1 FROM address_premises p
           WHERE p.country = t.country AND p.postcode = t.postcode AND p.street_key = t.street_key AND p.number = ?4
             AND p.dataset = t.dataset AND p.generation = t.generation) ELSE 0 END AS premise
       FROM (${union}) t
       ORDER BY t.token, t.kind, t.postcode, t.label, t.dataset LIMIT ${CANDIDATES}`,
    )
    .bind(
      country,
      driving,
      driving + TOP,
      query.number,
      ...others.map((w) => `% ${w}%`),
      ...names.flatMap((name) => [name, installed.get(name)!]),
    )
    .all<Hit>();
  return results;
}

const compact = (text: string) => text.replaceAll(" ", "");

/**
 * A hit's tier, best first: a listed house number on a street the query starts (0), such a street without the number
 * (1), a street one of whose words the query starts (3, 4), then places by name (5) and postcodes (6), and last a
 * street found only by its postcode or place (8, 9).
 */
export function tier(hit: Hit, query: Query): number {
  const typed = query.words.join(" ");
  if (hit.kind === "street") {
    const missing = query.number !== null && !hit.premise ? 1 : 0;
    const words = hit.street_key.split(" ");
    const named = query.words.some((w) => words.some((word) => word.startsWith(w)));
    return (hit.street_key.startsWith(typed) ? 0 : named ? 3 : 8) + missing;
  }
  if (hit.locality && placeKey(hit.locality).startsWith(typed)) return 5;
  return compact(fold(hit.postcode)).startsWith(compact(typed)) ? 6 : 7;
}
