import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The scheduled refresh's state per dataset (src/engines/datasets/refresh.ts, migrations/0017_refresh.sql): the run in
 * progress (`run`, `phase`, `generation`, `cursor` JSON, staged `files` JSON, `step_at` its last progress) and what the
 * operator and `/status/data` see (`status`: never | running | ok | failed, `error`, last attempt and success).
 */
export const datasetRefresh = sqliteTable("dataset_refresh", {
  name: text("name").primaryKey(),
  run: text("run"),
  phase: text("phase"),
  generation: integer("generation"),
  activeGeneration: integer("active_generation"),
  cursor: text("cursor"),
  files: text("files"),
  stepAt: integer("step_at"),
  status: text("status").notNull().default("never"),
  error: text("error"),
  lastAttemptAt: integer("last_attempt_at"),
  lastSuccessAt: integer("last_success_at"),
  lastVersion: text("last_version"),
  lastRecords: integer("last_records"),
  sourceTag: text("source_tag"),
  forced: integer("forced").notNull().default(0),
});
