import { and, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import type { Database } from "../../db/client";
import { readCoverage, type Coverage } from "../../db/coverage";
import { deleteInChunks, uninstallDataset } from "../../db/datasets";
import { datasets } from "../../db/schema";
import { phonePrefixes } from "./tables";
import { TABLE_DATASETS, type TableDataset } from "./datasets";

/**
 * What the phone product keeps in D1: the prefix tables (`phone_prefixes`) and which version of each is installed
 * (`datasets`). Reads join the two, so only rows of the installed version ever answer.
 */
export interface Installed {
  name: TableDataset;
  version: string;
  records: number;
  loadedAt: number;
  coverage: Coverage;
}

export interface PrefixRow {
  dataset: TableDataset;
  callingCode: string;
  prefix: string;
  value: string;
}

const installedRows = (db: Database) =>
  db
    .select()
    .from(datasets)
    .where(inArray(datasets.name, [...TABLE_DATASETS]));

const asInstalled = (rows: Awaited<ReturnType<typeof installedRows>>) =>
  new Map(
    rows.map((r) => [
      r.name as TableDataset,
      {
        name: r.name as TableDataset,
        version: r.version,
        records: r.records,
        loadedAt: r.loadedAt,
        coverage: readCoverage(r.coverage),
      },
    ]),
  );

export async function installedTables(db: Database): Promise<Map<TableDataset, Installed>> {
  return asInstalled(await installedRows(db));
}

/**
 * Rows of the listed version: loaded by hand under it, or refreshed as generation n under `gen-n` while the dataset is
 * listed at `<date>-gen-n` (refresh.ts). A hand-loaded version (`YYYY.MM.DD-hash8[-tag]`) never ends in `-gen-n`.
 */
const current = and(
  eq(datasets.name, phonePrefixes.dataset),
  or(
    eq(datasets.version, phonePrefixes.version),
    sql`substr(${datasets.version}, -length(${phonePrefixes.version}) - 1) = '-' || ${phonePrefixes.version}`,
  ),
);

const selectRows = (db: Database) =>
  db
    .select({
      dataset: phonePrefixes.dataset,
      callingCode: phonePrefixes.callingCode,
      prefix: phonePrefixes.prefix,
      value: phonePrefixes.value,
    })
    .from(phonePrefixes)
    .innerJoin(datasets, current);

/**
 * The installed rows whose prefix is one of `prefixes` (per calling code), and the installed tables, in one D1 batch.
 * Each calling code's prefixes travel as one JSON array (`json_each`), so a bulk chunk's thousands of prefixes are one
 * statement with two bound parameters rather than dozens cut below D1's limit of 100.
 */
export async function rowsForPrefixes(
  db: Database,
  prefixes: Map<string, Set<string>>,
): Promise<{ rows: PrefixRow[]; installed: Map<TableDataset, Installed> }> {
  const reads = [...prefixes].map(([code, set]) =>
    selectRows(db).where(
      and(
        eq(phonePrefixes.callingCode, code),
        sql`${phonePrefixes.prefix} IN (SELECT value FROM json_each(${JSON.stringify([...set])}))`,
      ),
    ),
  );
  const [installed, ...found] = await db.batch([installedRows(db), ...reads]);
  return { installed: asInstalled(installed), rows: (found as PrefixRow[][]).flat() };
}

/**
 * Installed carrier and geocode rows of a calling code whose prefix starts with `prefix` (at most `limit`), or is one
 * of `ancestors`.
 */
export async function blockRows(
  db: Database,
  block: { code: string; prefix: string; ancestors: string[]; limit: number },
) {
  const { code, prefix, ancestors, limit } = block;
  const names: TableDataset[] = ["phone-carriers", "phone-geocodes"];
  const scope = and(eq(phonePrefixes.callingCode, code), inArray(phonePrefixes.dataset, names));
  // ':' sorts right after '9', so [prefix, prefix + ':') holds exactly the prefixes that start with it.
  const under = selectRows(db)
    .where(and(scope, gte(phonePrefixes.prefix, prefix), lt(phonePrefixes.prefix, `${prefix}:`)))
    .orderBy(phonePrefixes.prefix)
    .limit(limit);
  const above = selectRows(db).where(and(scope, inArray(phonePrefixes.prefix, ancestors)));
  const [below, enclosing] = await db.batch([under, above]);
  return { below: below as PrefixRow[], enclosing: enclosing as PrefixRow[] };
}

const ROW_COLUMNS = 5;

/** Inserts rows of one dataset version (an import's batch): multi-row statements, all in one D1 batch. */
export async function insertRows(
  db: Database,
  dataset: TableDataset,
  version: string,
  rows: [string, string, string][],
): Promise<void> {
  const statements: BatchItem<"sqlite">[] = chunks(rows, Math.floor(MAX_PARAMS / ROW_COLUMNS)).map((part) =>
    db
      .insert(phonePrefixes)
      .values(part.map(([callingCode, prefix, value]) => ({ dataset, version, callingCode, prefix, value })))
      .onConflictDoUpdate({
        target: [phonePrefixes.callingCode, phonePrefixes.prefix, phonePrefixes.dataset, phonePrefixes.version],
        set: { value: sql`excluded.value` },
      }),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/**
 * Deletes rows of the dataset's versions other than `keep` (null: every version, and the dataset is uninstalled first)
 * until none are left or `budgetMs` has passed; `done` false asks the caller to repeat.
 */
export async function removeOtherVersions(
  db: Database,
  dataset: TableDataset,
  keep: string | null,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  if (keep === null) await uninstallDataset(db, dataset);
  // A scheduled refresh writing its generation meanwhile keeps its rows (src/products/phone/refresh.ts).
  const staging = sql`coalesce('gen-' || (SELECT staging FROM dataset_generations WHERE name = ${dataset}), '')`;
  return deleteInChunks(
    db,
    { name: "phone_prefixes", key: "rowid" },
    sql`dataset = ${dataset} AND version IS NOT ${keep} AND version IS NOT ${staging}`,
    budgetMs,
  );
}
