import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The last runs of each monitor: the summary and the changed entries (the first `STORED_CHANGES` of them, with how
 * many there were), the latest few per monitor; the monitor itself keeps only `last_summary`.
 */
export const monitorRuns = sqliteTable(
  "monitor_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    monitorId: integer("monitor_id").notNull(),
    ranAt: integer("ran_at").notNull(),
    summary: text("summary", { mode: "json" }).notNull(),
    changes: text("changes", { mode: "json" }).notNull(),
    changedTotal: integer("changed_total").notNull(),
  },
  (t) => [index("monitor_runs_monitor").on(t.monitorId, t.id)],
);
