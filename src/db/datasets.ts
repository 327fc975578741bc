import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "./client";
import { readCoverage, storedCoverage, type Coverage, type Listing } from "./coverage";
import { datasets } from "./schema";

export interface Dataset {
  name: string;
  version: string;
  records: number;
  loadedAt: number;
  coverage: Coverage;
}

/** Every dataset loaded into D1 (registers and imported snapshots), by name, with its coverage read. */
export async function loadedDatasets(db: Database): Promise<Dataset[]> {
  const rows = await db.select().from(datasets).orderBy(asc(datasets.name));
  return rows.map((r) => ({ ...r, coverage: readCoverage(r.coverage) }));
}

/**
 * Marks a dataset installed at `version` (its file's publication date) covering `coverage` (src/db/coverage.ts: what
 * the importer loaded, the publisher's whole file or part of it): answers cite it and `/status/data` lists it.
 */
export async function installDataset(db: Database, name: string, listing: Listing): Promise<Dataset> {
  const { version, records, now, coverage } = listing;
  const stored = storedCoverage(coverage);
  await db
    .insert(datasets)
    .values({ name, version, records, loadedAt: now, coverage: stored })
    .onConflictDoUpdate({ target: datasets.name, set: { version, records, loadedAt: now, coverage: stored } });
  return { name, version, records, loadedAt: now, coverage: readCoverage(stored) };
}

/** Uninstalls a dataset at once: its rows may then be deleted at leisure. */
export const uninstallDataset = (db: Database, name: string) => db.delete(datasets).where(eq(datasets.name, name));

const DELETE_CHUNK = 20_000;

/** A table rows are deleted from, and the columns that pick a row: `rowid`, or a WITHOUT ROWID table's primary key. */
export interface ChunkedTable {
  name: string;
  key: string;
}

/**
 * Deletes the rows of `table` that `where` selects, 20,000 a statement (a D1 statement may not run for long), until
 * none are left or `budgetMs` has passed; `done` false asks the caller to repeat.
 */
export async function deleteInChunks(
  db: Database,
  table: ChunkedTable,
  where: SQL,
  budgetMs: number,
): Promise<{ deleted: number; done: boolean }> {
  const started = Date.now();
  let deleted = 0;
  const name = sql.identifier(table.name);
  const key = sql.raw(table.key);
  for (;;) {
    const result = await db.run(
      sql`DELETE FROM ${name} WHERE (${key}) IN (SELECT ${key} FROM ${name} WHERE ${where} LIMIT ${DELETE_CHUNK})`,
    );
    const changes = result.meta.changes ?? 0;
    deleted += changes;
    if (changes < DELETE_CHUNK) return { deleted, done: true };
    if (Date.now() - started > budgetMs) return { deleted, done: false };
  }
}
