import type { BatchItem } from "drizzle-orm/batch";
import { and, count, desc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import { chunks, MAX_PARAMS } from "../../db/chunks";
import { database } from "../../db/client";
import { monitorBaselines, monitorRuns, monitors } from "../../db/schema";

/**
 * Every D1 query of the monitor engine. A monitor belongs to one account and one product; routes reach it only through
 * `findMonitor`, which checks both, so another account's (or product's) monitor reads as absent.
 */
export type MonitorRow = typeof monitors.$inferSelect;

/** A monitor row to insert (the id is assigned by D1). */
export type NewMonitor = Omit<typeof monitors.$inferInsert, "id">;

/** The columns a PATCH may change. */
export type MonitorChanges = Partial<
  Pick<
    NewMonitor,
    | "name"
    | "entries"
    | "cadence"
    | "webhookUrl"
    | "webhookSecret"
    | "webhookEvents"
    | "alertEmails"
    | "options"
    | "nextRunAt"
  >
>;

/** Whose monitors a route may see: one account's, of one product. */
export interface MonitorOwner {
  accountId: string;
  product: string;
}

/** What a run writes: the entry's new baseline, keyed by the product's entry key. */
export interface Baseline {
  entryKey: string;
  answer: Record<string, unknown>;
}

// D1 binds at most 100 parameters per statement; key lists are cut below that.
const KEYS_PER_STATEMENT = 90;

const owned = (owner: MonitorOwner) =>
  and(eq(monitors.accountId, owner.accountId), eq(monitors.product, owner.product));

/** Inserts a monitor and returns its row. */
export async function insertMonitor(env: Env, values: NewMonitor): Promise<MonitorRow> {
  const [row] = await database(env).insert(monitors).values(values).returning();
  return row!;
}

/** The owner's monitor `id`, or undefined when it does not exist or belongs to another account or product. */
export async function findMonitor(env: Env, owner: MonitorOwner, id: number): Promise<MonitorRow | undefined> {
  return database(env)
    .select()
    .from(monitors)
    .where(and(eq(monitors.id, id), owned(owner)))
    .get();
}

/** A monitor by id alone: for the queue consumer, which acts for whoever owns it. */
export async function monitorById(env: Env, id: number): Promise<MonitorRow | undefined> {
  return database(env).select().from(monitors).where(eq(monitors.id, id)).get();
}

/** One page of the owner's monitors, newest first, with the owner's total. */
export async function pageMonitors(
  env: Env,
  owner: MonitorOwner,
  page: number,
  perPage: number,
): Promise<{ rows: MonitorRow[]; total: number }> {
  const db = database(env);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(monitors)
      .where(owned(owner))
      .orderBy(desc(monitors.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    db.select({ n: count() }).from(monitors).where(owned(owner)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Applies `changes` and returns the row as it now stands. */
export async function updateMonitor(env: Env, id: number, changes: MonitorChanges): Promise<MonitorRow | undefined> {
  const [row] = await database(env).update(monitors).set(changes).where(eq(monitors.id, id)).returning();
  return row;
}

/** Deletes a monitor together with its baselines and its runs. */
export async function deleteMonitor(env: Env, id: number): Promise<void> {
  const db = database(env);
  await db.batch([
    db.delete(monitorBaselines).where(eq(monitorBaselines.monitorId, id)),
    db.delete(monitorRuns).where(eq(monitorRuns.monitorId, id)),
    db.delete(monitors).where(eq(monitors.id, id)),
  ]);
}

/** The monitor's baselines by entry key, as stored: the observed fields and the answer's provenance beside them. */
export async function storedBaselines(env: Env, id: number): Promise<Map<string, Record<string, unknown>>> {
  const rows = await database(env).select().from(monitorBaselines).where(eq(monitorBaselines.monitorId, id));
  return new Map(rows.map((b) => [b.entryKey, b.answer as Record<string, unknown>]));
}

/** PATCH rule 2: baselines of entries no longer listed are dropped; entries that stay keep theirs. */
export async function keepBaselines(env: Env, id: number, keep: Iterable<string>): Promise<void> {
  const db = database(env);
  const kept = new Set(keep);
  const stored = await db
    .select({ key: monitorBaselines.entryKey })
    .from(monitorBaselines)
    .where(eq(monitorBaselines.monitorId, id));
  const removed = stored.map((s) => s.key).filter((key) => !kept.has(key));
  const statements = chunks(removed, KEYS_PER_STATEMENT).map((keys) =>
    db
      .delete(monitorBaselines)
      .where(and(eq(monitorBaselines.monitorId, id), inArray(monitorBaselines.entryKey, keys))),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** Baseline rows one upsert writes: four parameters a row, and the time of the update, within D1's 100. */
export const BASELINES_PER_STATEMENT = Math.floor((MAX_PARAMS - 1) / 4);

/** Runs kept per monitor; changed entries kept per run (of 1,000 changes: the first 100, and the count). */
export const KEPT_RUNS = 10;
export const STORED_CHANGES = 100;

export type MonitorRunRow = typeof monitorRuns.$inferSelect;

/** The monitor's last runs, newest first. */
export async function recentRuns(env: Env, id: number, limit = KEPT_RUNS): Promise<MonitorRunRow[]> {
  return database(env)
    .select()
    .from(monitorRuns)
    .where(eq(monitorRuns.monitorId, id))
    .orderBy(desc(monitorRuns.id))
    .limit(limit);
}

/**
 * Records a run in one batch: the new baselines, `last_run_at` and `last_summary`, and the run with its changed
 * entries (older runs beyond `KEPT_RUNS` pruned); returns the monitor as it now stands.
 */
export async function recordRun(
  env: Env,
  id: number,
  ran: { baselines: Baseline[]; summary: Record<string, unknown>; now: number; changes?: unknown[] },
): Promise<MonitorRow | undefined> {
  const { baselines, summary, now, changes = [] } = ran;
  const db = database(env);
  const run = db.insert(monitorRuns).values({
    monitorId: id,
    ranAt: now,
    summary,
    changes: changes.slice(0, STORED_CHANGES),
    changedTotal: changes.length,
  });
  const kept = db
    .select({ id: monitorRuns.id })
    .from(monitorRuns)
    .where(eq(monitorRuns.monitorId, id))
    .orderBy(desc(monitorRuns.id))
    .limit(KEPT_RUNS);
  const prune = db.delete(monitorRuns).where(and(eq(monitorRuns.monitorId, id), notInArray(monitorRuns.id, kept)));
  // Baselines many rows a statement: a statement each made a 1,000-entry run a batch of 1,003, over the 1,000 queries
  // D1 allows one invocation (src/platform/cloudflare-limits.ts; test/limits/hops.ts checks the count).
  const writes: BatchItem<"sqlite">[] = chunks(baselines, BASELINES_PER_STATEMENT).map((rows) =>
    db
      .insert(monitorBaselines)
      .values(rows.map((b) => ({ monitorId: id, entryKey: b.entryKey, answer: b.answer, recordedAt: now })))
      .onConflictDoUpdate({
        target: [monitorBaselines.monitorId, monitorBaselines.entryKey],
        set: { answer: sql`excluded.answer`, recordedAt: now },
      }),
  );
  const update = db
    .update(monitors)
    .set({ lastRunAt: now, lastSummary: summary })
    .where(eq(monitors.id, id))
    .returning();
  const results = await db.batch([update, ...writes, run, prune]);
  return results[0][0];
}

/** Monitors whose run is due, with the due time each is queued for. */
export async function dueMonitors(env: Env, now: number, limit: number): Promise<{ id: number; nextRunAt: number }[]> {
  return database(env)
    .select({ id: monitors.id, nextRunAt: monitors.nextRunAt })
    .from(monitors)
    .where(lte(monitors.nextRunAt, now))
    .limit(limit);
}

/**
 * Claims the run due at `dueAt` by moving `next_run_at` to `nextRunAt`; undefined when another message already did
 * (or a PATCH moved the schedule), so each due run happens once.
 */
export async function claimDue(
  env: Env,
  id: number,
  dueAt: number,
  nextRunAt: number,
): Promise<MonitorRow | undefined> {
  const [row] = await database(env)
    .update(monitors)
    .set({ nextRunAt })
    .where(and(eq(monitors.id, id), eq(monitors.nextRunAt, dueAt)))
    .returning();
  return row;
}

/** The account's monitor `id` of any family (a ledger row names the monitor, not its family), or undefined. */
export async function accountMonitor(env: Env, accountId: string, id: number): Promise<MonitorRow | undefined> {
  return database(env)
    .select()
    .from(monitors)
    .where(and(eq(monitors.id, id), eq(monitors.accountId, accountId)))
    .get();
}

/** The monitor's run made at `ranAt` (its operation id's time), while it is among the runs kept. */
export async function runAt(env: Env, monitorId: number, ranAt: number): Promise<MonitorRunRow | undefined> {
  return database(env)
    .select()
    .from(monitorRuns)
    .where(and(eq(monitorRuns.monitorId, monitorId), eq(monitorRuns.ranAt, ranAt)))
    .get();
}
