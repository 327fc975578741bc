// @ts-check
// `npm run bench:capacity`: how much of D1's 10 GB the reference data takes at its publishers' full sizes, measured.
//
// Starts the Worker on a fresh local database and loads what `npm run dev` loads through the operator routes (the
// register, address and IP samples, the phone prefix tables in full), so every row is written by the project's own
// importers. Then, on a copy of the D1 file, grows each dataset's rows to BENCH_ROWS (default 50,000) by copying its
// rows into further generations (every column as imported, only the generation differs; the phone tables, which have
// no generation, get a version of the same length), and reads the bytes each dataset adds per row to its table and to
// each of the table's indexes from SQLite's dbstat (pages in use, so page fill and B-tree overhead are counted).
// Prints bytes per row per dataset, and the projected size at each publisher's full file with two generations of the
// largest side by side (a refresh writes the new one beside the one answers read), for each D1 database that holds
// reference data (`DB`, `REFERENCE_ADDRESS`: each a local file, told apart by its tables) against D1's 10 GB limit and
// the 60 % line a database's reference data may not pass (docs/operations.md, "Capacity").
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { DATABASES, printReport, projection } from "./lib/capacity-projection.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { loadDatasets } from "../scripts/lib/dev-datasets.mjs";
import { requireNode22 } from "../scripts/lib/local.mjs";
import { localD1Files } from "../scripts/lib/migrations.mjs";
import { DatabaseSync } from "../scripts/lib/sqlite.mjs";

requireNode22();

const ROWS = size("BENCH_ROWS", 50_000, 2_000);
const ADMIN_TOKEN = "bench-admin-token";

/** The reference tables and the column naming the dataset of a row (null: one dataset a table). */
const TABLES = {
  register_entities: "register",
  address_postcodes: "dataset",
  address_streets: "dataset",
  address_premises: "dataset",
  autocomplete_tokens: "dataset",
  ip_city_ranges: null,
  ip_country_ranges: null,
  ip_asn_ranges: null,
  ip_signal_ranges: "dataset",
  ip_tor_exits: null,
  phone_prefixes: "dataset",
};

const held = resources();
let dir = null;

await runBench({
  main,
  held,
  timeoutMs: size("BENCH_TIMEOUT_MS", 30 * 60_000, 10 * 60_000),
});

async function main() {
  dir = held.tempDir("capacity-bench-");
  const { base, child } = await startWorker({
    held,
    dir,
    vars: { ADMIN_TOKEN },
    log: "capacity-wrangler.log",
    frozen: true,
    logLevel: "warn",
  });
  const started = Date.now();
  const failures = [];
  const lines = [];
  await loadDatasets({
    baseUrl: base,
    token: ADMIN_TOKEN,
    log: (line) => lines.push(line),
    warn: (line) => failures.push(line),
  });
  for (const line of lines.filter((l) => /phone|installed|rows/.test(l))) console.log(line);
  console.log(`[bench] loaded the datasets npm run dev loads in ${Math.round((Date.now() - started) / 1000)} s`);
  for (const line of failures) console.error(line);
  await held.drop(child);
  const files = localD1Files(join(dir, "state"));
  const measured = [];
  let indexed = [];
  for (const [name, tables] of Object.entries(DATABASES)) {
    const db = copyOf(files, tables[0]);
    // The index rows of each dataset's imported postcodes and streets, by kind (before any rows are copied).
    if (tables.includes("autocomplete_tokens"))
      indexed = db.prepare("SELECT dataset, kind, COUNT(*) AS n FROM autocomplete_tokens GROUP BY dataset, kind").all();
    for (const table of tables) measured.push(...measureTable(db, table, TABLES[table] ?? null));
    db.close();
    console.log(`[bench] ${name}: ${tables.join(", ")} measured`);
  }
  const plan = projection(measured, indexed);
  printReport(measured, plan, ROWS);
  return checkRun({
    bench: "capacity",
    figures: {
      ...Object.fromEntries(measured.map((m) => [`${m.table}/${m.dataset} bytes/row`, m.bytesPerRow])),
      "projected GB": Math.round(plan.totalBytes / 1e7) / 100,
      ...Object.fromEntries(plan.planned.map((d) => [`${d.name} projected GB`, Math.round(d.totalBytes / 1e7) / 100])),
    },
    errored: failures.length,
  });
}

/** A copy of the local D1 file holding `table` (one file a binding), opened; the copies are grown, not the files. */
function copyOf(files, table) {
  const holding = files.filter((file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    } finally {
      db.close();
    }
  });
  if (holding.length !== 1) throw new Error(`${holding.length} local D1 files hold ${table}, not one`);
  const file = holding[0];
  const copy = join(dir, `capacity-${table}.sqlite`);
  copyFileSync(file, copy);
  for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
  return new DatabaseSync(copy);
}

/** Bytes in use (pages) of each B-tree of `table`: the table's own and each index's. */
function btreeBytes(db, table) {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index')")
    .all(table)
    .map((r) => String(r.name));
  const bytes = {};
  for (const name of names) {
    const row = db.prepare("SELECT COALESCE(SUM(pgsize), 0) AS n FROM dbstat WHERE name = ?").get(name);
    bytes[name] = Number(row?.n ?? 0);
  }
  return bytes;
}

/** Each dataset of `table` grown to ROWS rows: the bytes its added rows took per row, per B-tree. */
function measureTable(db, table, column) {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!exists) throw new Error(`no table ${table} in the D1 file: TABLES in bench/capacity.mjs is out of date`);
  const total = Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0);
  const generations = db.prepare(`SELECT 1 FROM pragma_table_info('${table}') WHERE name = 'generation'`).get();
  if (!generations) {
    // No generation to copy rows into: imported in full (the phone tables), measured as they are, every dataset of
    // the table together.
    if (total < ROWS) throw new Error(`${table}: ${total} rows imported, fewer than the ${ROWS} to measure`);
    const perTree = Object.fromEntries(
      Object.entries(btreeBytes(db, table)).map(([name, bytes]) => [name, Math.round((bytes / total) * 10) / 10]),
    );
    const bytesPerRow = Math.round(Object.values(perTree).reduce((a, b) => a + b, 0) * 10) / 10;
    return [{ table, dataset: "*", imported: total, rows: total, bytesPerRow, perTree }];
  }
  const datasets = column
    ? db
        .prepare(`SELECT DISTINCT ${column} AS d FROM ${table}`)
        .all()
        .map((r) => String(r.d))
    : ["*"];
  const out = [];
  for (const dataset of datasets) {
    const where = column ? `WHERE ${column} = ?` : "";
    const binds = column ? [dataset] : [];
    const count = () => Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table} ${where}`).get(...binds)?.n ?? 0);
    const first = count();
    if (first === 0) {
      console.log(`[bench] ${table}/${dataset}: no rows imported`);
      continue;
    }
    const before = btreeBytes(db, table);
    grow(db, table, { where, binds, target: ROWS });
    const rows = count();
    const after = btreeBytes(db, table);
    const added = rows - first;
    if (added <= 0) continue;
    const perTree = Object.fromEntries(
      Object.keys(after).map((name) => [name, Math.round(((after[name] - (before[name] ?? 0)) / added) * 10) / 10]),
    );
    const bytesPerRow = Math.round(Object.values(perTree).reduce((a, b) => a + b, 0) * 10) / 10;
    out.push({ table, dataset, imported: first, rows, bytesPerRow, perTree });
  }
  return out;
}

/**
 * Copies the rows `where` selects until there are `target`, every column as imported but the generation: the
 * imported rows go into the generation after the newest, then that block of generations is copied into as many new
 * ones, doubling (so a dataset of 3 sample rows reaches 50,000 in 15 statements). The generations written reach a few
 * thousand, one byte a row (and an index entry) more than a real one's: the projection errs on the large side.
 */
function grow(db, table, { where, binds, target }) {
  const columns = db
    .prepare(`SELECT name FROM pragma_table_info('${table}')`)
    .all()
    .map((r) => String(r.name));
  if (!columns.includes("generation"))
    throw new Error(`${table} has no generation column: import it in full (as the phone tables) to measure it`);
  // The dataset's newest generation: another dataset's rows never collide (the dataset is part of
  // every such table's key).
  const top = Number(db.prepare(`SELECT MAX(generation) AS g FROM ${table} ${where}`).get(...binds)?.g ?? 0);
  const and = where ? " AND" : " WHERE";
  const list = columns.map((c) => `"${c}"`).join(", ");
  const copy = (from, to, shift, limit) =>
    db
      .prepare(
        `INSERT OR IGNORE INTO ${table} (${list}) SELECT ${columns
          .map((c) => (c === "generation" ? `generation + ${shift}` : `"${c}"`))
          .join(", ")} FROM ${table} ${where}${and} generation > ${from} AND generation <= ${to} LIMIT ${limit}`,
      )
      .run(...binds).changes;
  let rows = Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table} ${where}`).get(...binds)?.n ?? 0);
  db.exec("BEGIN");
  // The imported rows (any generation up to the newest) into generation top + 1 ...
  let added = Number(
    db
      .prepare(
        `INSERT OR IGNORE INTO ${table} (${list}) SELECT ${columns
          .map((c) => (c === "generation" ? `${top} + 1` : `"${c}"`))
          .join(", ")} FROM ${table} ${where} LIMIT ${Math.max(0, target - rows)}`,
      )
      .run(...binds).changes,
  );
  rows += added;
  // ... then generations (top, top + span] into (top + span, top + 2 span].
  for (let span = 1; rows < target && added > 0; span *= 2) {
    added = Number(copy(top, top + span, span, target - rows));
    rows += added;
  }
  db.exec("COMMIT");
}
