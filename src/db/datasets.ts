import { asc } from "drizzle-orm";
import type { Database } from "./client";
import { datasets } from "./schema";

export type Dataset = typeof datasets.$inferSelect;

/** Every dataset loaded into D1 (registers and imported snapshots), by name. */
export function loadedDatasets(db: Database): Promise<Dataset[]> {
  return db.select().from(datasets).orderBy(asc(datasets.name));
}
