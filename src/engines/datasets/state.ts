import type { ReaderState } from "./refreshable";
import type { StagedFile } from "./stage";

/**
 * The `dataset_refresh` row of each refreshable dataset (migrations/0017_refresh.sql): the run in progress and what the
 * operator and `/status/data` see. Every write that moves a run on names the run, so a late or duplicate queue message
 * of a finished or replaced run changes nothing.
 */
export interface RefreshRow {
  name: string;
  run: string | null;
  phase: "fetch" | "import" | "sweep" | null;
  generation: number | null;
  active_generation: number | null;
  cursor: string | null;
  files: string | null;
  step_at: number | null;
  status: "never" | "running" | "ok" | "failed";
  error: string | null;
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_version: string | null;
  last_records: number | null;
  source_tag: string | null;
  forced: number;
}

/** Where an import stands: file `file` of the staged files at byte `offset`, with the reader's state there. */
export interface Cursor {
  file: number;
  offset: number;
  state: ReaderState | null;
  records: number;
  skipped: number;
  /** Steps that threw in a row (a transient D1 error is retried from the cursor; a third failure fails the run). */
  failures: number;
}

export const START: Cursor = { file: 0, offset: 0, state: null, records: 0, skipped: 0, failures: 0 };

export const readFiles = (row: RefreshRow): StagedFile[] => JSON.parse(row.files ?? "[]") as StagedFile[];
export const readCursor = (row: RefreshRow): Cursor => (row.cursor ? (JSON.parse(row.cursor) as Cursor) : START);

export const refreshRows = async (db: D1Database): Promise<RefreshRow[]> =>
  (await db.prepare("SELECT * FROM dataset_refresh ORDER BY name").all<RefreshRow>()).results;

export const refreshRow = (db: D1Database, name: string) =>
  db.prepare("SELECT * FROM dataset_refresh WHERE name = ?").bind(name).first<RefreshRow>();

/** A dataset's refresh run: the dataset's name and the run's id. */
export interface RunAt {
  name: string;
  run: string;
}

/** Starts run `run` unless one is in progress; false when one is. */
export async function claimRun(db: D1Database, at: RunAt, now: number, forced: boolean): Promise<boolean> {
  const { name, run } = at;
  const row = await db
    .prepare(
      `INSERT INTO dataset_refresh (name, run, phase, status, error, last_attempt_at, step_at, cursor, files, forced)
       VALUES (?1, ?2, 'fetch', 'running', NULL, ?3, ?3, NULL, NULL, ?4)
       ON CONFLICT (name) DO UPDATE SET run = ?2, phase = 'fetch', status = 'running', error = NULL,
         last_attempt_at = ?3, step_at = ?3, cursor = NULL, files = NULL, generation = NULL, forced = ?4
       WHERE dataset_refresh.run IS NULL
       RETURNING run`,
    )
    .bind(name, run, now, forced ? 1 : 0)
    .first<{ run: string }>();
  return row?.run === run;
}

/** The statement that moves run `run` on (`where` adds a condition, e.g. the cursor it read). */
export function advance(
  db: D1Database,
  at: RunAt,
  set: Partial<RefreshRow>,
  where: { cursor?: string | null } = {},
): D1PreparedStatement {
  const { name, run } = at;
  const columns = Object.keys(set);
  const values = Object.values(set);
  const assignments = columns.map((c, i) => `${c} = ?${i + 3}`).join(", ");
  const cursorCondition =
    where.cursor === undefined
      ? ""
      : where.cursor === null
        ? " AND cursor IS NULL"
        : ` AND cursor = ?${columns.length + 3}`;
  const bound = [name, run, ...values, ...(where.cursor ? [where.cursor] : [])];
  return db
    .prepare(`UPDATE dataset_refresh SET ${assignments} WHERE name = ?1 AND run = ?2${cursorCondition}`)
    .bind(...bound);
}

/**
 * Ends run `run` as failed: answers keep reading the generation they read; the error is shown until the next success.
 */
export const failRun = (db: D1Database, at: RunAt, error: string, now: number) =>
  advance(db, at, {
    run: null,
    phase: null,
    status: "failed",
    error: error.slice(0, 1_000),
    step_at: now,
    cursor: null,
    files: null,
  }).run();
