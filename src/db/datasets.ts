import { asc } from "drizzle-orm";
import type { Database } from "./client";
import { datasets } from "./schema";

export type Dataset = typeof datasets.$inferSelect;

/** Every dataset loaded into D1 (registers and imported snapshots), by name. */
export function loadedDatasets(db: Database): Promise<Dataset[]> {
  return db.select().from(datasets).orderBy(asc(datasets.name));
}

/** Marks a dataset installed at `version` (its file's publication date): answers cite it and `/status/data` lists it. */
export async function installDataset(db: Database, name: string, version: string, records: number, now: number): Promise<Dataset> {
  const row = { name, version, records, loadedAt: now };
  await db.insert(datasets).values(row).onConflictDoUpdate({ target: datasets.name, set: { version, records, loadedAt: now } });
  return row;
}
