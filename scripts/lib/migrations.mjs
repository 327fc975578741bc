// The local D1 migrations as one `wrangler d1 execute --file` instead of `wrangler d1 migrations apply`, which starts
// a local runtime for each migration (about 1.2 s apiece: the 21 migrations took 30 s of a first `npm run dev`). The
// bookkeeping is wrangler's own: its `d1_migrations` table, created as wrangler creates it, and one row per file in
// wrangler's order, written in the same batch as the file; so `wrangler d1 migrations list|apply` see the same state
// afterwards. D1 runs a batch as one transaction: it applies whole or not at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "./sqlite.mjs";

/** wrangler's default; wrangler.toml sets no `migrations_table` (local.mjs falls back to wrangler if it ever does). */
export const MIGRATIONS_TABLE = "d1_migrations";

// Verbatim from wrangler (getCreateMigrationsTableQuery), so a table made here is the table wrangler would make.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}"(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

const leadingNumber = (name) => Number.parseInt(name.split("_")[0], 10);

/** The `.sql` files of `dir` in wrangler's order: by leading number where both have one, then by name. */
export function migrationFiles(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort((a, b) => {
      const [x, y] = [leadingNumber(a), leadingNumber(b)];
      if (x !== y && (Number.isFinite(x) || Number.isFinite(y))) {
        if (Number.isFinite(x) && Number.isFinite(y)) return x - y;
        return Number.isFinite(x) ? -1 : 1;
      }
      return a < b ? -1 : a > b ? 1 : 0;
    });
}

/** The local D1 database files under a persistence directory (none before anything created one). */
export function localD1Files(persistTo) {
  const dir = join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite")
    .map((name) => join(dir, name));
}

/** Names `file` records as applied, oldest first ([] before the table exists). Read-only: safe beside wrangler. */
export function appliedMigrations(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
    if (!table) return [];
    return db
      .prepare(`SELECT name FROM "${MIGRATIONS_TABLE}" ORDER BY id`)
      .all()
      .map((row) => row.name);
  } finally {
    db.close();
  }
}

/**
 * The migrations of `dir` not yet applied to its local database under `persistTo`, in order. Each binding has its own
 * directory with its own migration names (`DB` migrations/, `REFERENCE_ADDRESS` migrations-address/), so its file is
 * the one that recorded one of them; none did: all are pending, unless a file recorded none at all (it may be this
 * binding's, which is wrangler's business: null, and the caller asks wrangler), or several did (null too).
 */
export function pendingMigrations({ persistTo, dir }) {
  const names = migrationFiles(dir);
  const files = localD1Files(persistTo).map((file) => appliedMigrations(file));
  const ours = files.filter((applied) => applied.some((name) => names.includes(name)));
  if (ours.length > 1 || (!ours.length && files.some((applied) => !applied.length))) return null;
  const applied = new Set(ours[0] ?? []);
  return names.filter((name) => !applied.has(name));
}

/** The SQL wrangler runs for `pending`, as one batch: its table, then each file followed by the row recording it. */
export function migrationBatch(pending, dir) {
  const steps = pending.map(
    (name) =>
      `${readFileSync(join(dir, name), "utf8")}\nINSERT INTO "${MIGRATIONS_TABLE}" (name)\n` +
      `values ('${name.replace(/'/g, "''")}');`,
  );
  return [CREATE_TABLE, ...steps].join("\n");
}
