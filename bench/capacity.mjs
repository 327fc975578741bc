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
// largest side by side (a refresh writes the new one beside the one answers read), against D1's 10 GB limit and the
// 60 % line past which reference data moves out of `DB` (docs/operations.md, "Capacity").
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageFiles } from "../datasets/ip/build.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { startWorker } from "./lib/stack.mjs";
import { loadDatasets } from "../scripts/lib/dev-datasets.mjs";
import { localD1File } from "../scripts/lib/local-ip-tables.mjs";
import { ROOT, requireNode22, stopProcess } from "../scripts/lib/local.mjs";
import { DatabaseSync } from "../scripts/lib/sqlite.mjs";

requireNode22();

const ROWS = size("BENCH_ROWS", 50_000, 2_000);
const ADMIN_TOKEN = "bench-admin-token";
const D1_LIMIT_BYTES = 10 * 1000 ** 3;
const MOVE_AT = 0.6;

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

/**
 * Rows of each publisher's full file, as the project imports it (docs/operations.md cites each). The IP tables'
 * counts are read from the installed packages below; a dataset not named here is measured but not projected.
 */
const FULL_ROWS = {
  "register_entities/gleif-lei": { rows: 2_900_000, source: "GLEIF golden copy" },
  "register_entities/uk-companies-house": { rows: 5_700_000, source: "Companies House basic data" },
  "address_postcodes/uk-onspd": { rows: 2_700_000, source: "ONSPD" },
  "address_streets/uk-os-open-names": { rows: 3_000_000, source: "OS Open Names" },
  "address_premises/fr-ban": { rows: 26_000_000, source: "BAN premises" },
  // The autocomplete index of the BAN as bench:autocomplete measured it on a BAN-format file of 2 M addresses (51.6
  // MiB, docs/address.md): at the 231.5 bytes a row measured here, 0.117 rows an address. The samples' own ratio (a
  // place entry for nearly every street) would overstate it.
  "autocomplete_tokens/fr-ban": { rows: 3_050_000, source: "BAN index (bench:autocomplete's file)" },
  // The ip-city package's CSV holds a subset; the full table as the MMDB fills it had 3.06 M rows (issue 50).
  "ip_city_ranges/*": { rows: 3_060_000, source: "ip-city (GeoLite2 City, full)" },
  "phone_prefixes/*": { rows: 393_000, source: "phone prefix tables (libphonenumber)" },
};
const IP_PACKAGES = { ip_city_ranges: "ip-city", ip_country_ranges: "ip-country", ip_asn_ranges: "ip-asn" };

let worker = null;
let dir = null;
const logFds = [];

await runBench({
  main,
  cleanup: async () => {
    if (worker) await stopProcess(worker), (worker = null);
    if (dir) rmSync(dir, { recursive: true, force: true }), (dir = null);
  },
  timeoutMs: size("BENCH_TIMEOUT_MS", 30 * 60_000, 10 * 60_000),
});

async function main() {
  dir = mkdtempSync(join(tmpdir(), "capacity-bench-"));
  const { base } = await startWorker({
    dir,
    vars: { ADMIN_TOKEN },
    log: "capacity-wrangler.log",
    frozen: true,
    logLevel: "warn",
    track: ({ child, logFd }) => ((worker = child), logFds.push(logFd)),
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
  await stopProcess(worker);
  worker = null;
  const file = localD1File(ROOT, join(dir, "state"));
  if (!file) throw new Error("no local D1 file after the import");
  const copy = join(dir, "capacity.sqlite");
  copyFileSync(file, copy);
  for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
  const db = new DatabaseSync(copy);
  // The index rows of each dataset's imported postcodes and streets, by kind (before any rows are copied).
  const indexed = db
    .prepare("SELECT dataset, kind, COUNT(*) AS n FROM autocomplete_tokens GROUP BY dataset, kind")
    .all();
  const measured = [];
  for (const [table, column] of Object.entries(TABLES)) measured.push(...measureTable(db, table, column));
  db.close();
  const plan = projection(measured, indexed);
  printReport(measured, plan);
  return checkRun({
    bench: "capacity",
    figures: {
      ...Object.fromEntries(measured.map((m) => [`${m.table}/${m.dataset} bytes/row`, m.bytesPerRow])),
      "projected GB": Math.round(plan.totalBytes / 1e7) / 100,
    },
    errored: failures.length,
  });
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

/** Lines in the installed package's files: the rows of the publisher's full file as the package ships it. */
function packageRows(dataset) {
  let rows = 0;
  for (const file of packageFiles(dataset)) {
    const text = readFileSync(file, "latin1");
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) rows++;
  }
  return rows;
}

/**
 * The autocomplete index of a dataset at its full file: for each kind of entry (a street, a postcode) whose source
 * table is projected, the index rows the imported source rows were given (the same importer writes both), per row,
 * times the full file's rows; null when neither is projected.
 */
function indexRows(measured, indexed, dataset) {
  const kinds = [
    { kind: "postcode", table: "address_postcodes" },
    { kind: "street", table: "address_streets" },
  ].flatMap(({ kind, table }) => {
    const full = FULL_ROWS[`${table}/${dataset}`];
    const imported = measured.find((m) => m.table === table && m.dataset === dataset)?.imported ?? 0;
    const rows = Number(indexed.find((r) => r.dataset === dataset && r.kind === kind)?.n ?? 0);
    return full && imported ? [{ kind, ratio: rows / imported, rows: (rows / imported) * full.rows }] : [];
  });
  if (!kinds.length) return null;
  return {
    rows: Math.round(kinds.reduce((sum, k) => sum + k.rows, 0)),
    source: kinds.map((k) => `${k.ratio.toFixed(2)} a ${k.kind} row`).join(", "),
  };
}

/** Each publisher's full file at the bytes per row measured, plus a second generation of the largest. */
function projection(measured, indexed) {
  const lines = [];
  for (const m of measured) {
    const full =
      FULL_ROWS[`${m.table}/${m.dataset}`] ??
      (m.table === "autocomplete_tokens" ? indexRows(measured, indexed, m.dataset) : null) ??
      (IP_PACKAGES[m.table]
        ? { rows: packageRows(IP_PACKAGES[m.table]), source: `${IP_PACKAGES[m.table]} package` }
        : null);
    if (!full) continue;
    lines.push({
      table: m.table,
      dataset: m.dataset,
      source: full.source,
      rows: full.rows,
      bytes: full.rows * m.bytesPerRow,
    });
  }
  lines.sort((a, b) => b.bytes - a.bytes);
  const largest = lines[0];
  const oneGeneration = lines.reduce((s, l) => s + l.bytes, 0);
  const totalBytes = oneGeneration + (largest?.bytes ?? 0);
  return { lines, largest, oneGeneration, totalBytes };
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

function printReport(measured, plan) {
  console.log(`\nbytes per row, measured (dbstat, rows grown to ${ROWS} a dataset):`);
  console.log(
    `${"table/dataset".padEnd(42)} ${"imported".padStart(9)} ${"rows".padStart(8)} ${"bytes/row".padStart(10)}` +
      "  per B-tree",
  );
  for (const m of measured)
    console.log(
      `${`${m.table}/${m.dataset}`.padEnd(42)} ${String(m.imported).padStart(9)} ${String(m.rows).padStart(8)} ` +
        `${m.bytesPerRow.toFixed(1).padStart(10)}  ${Object.entries(m.perTree)
          .map(([name, b]) => `${name} ${b}`)
          .join(", ")}`,
    );
  console.log("\nprojected at each publisher's full file:");
  for (const l of plan.lines)
    console.log(
      `${`${l.table}/${l.dataset}`.padEnd(42)} ${l.source.padEnd(38)} ${String(l.rows).padStart(11)} rows ` +
        `${mb(l.bytes).padStart(9)}`,
    );
  const share = plan.totalBytes / D1_LIMIT_BYTES;
  console.log(
    `${"second generation of the largest".padEnd(42)} ` +
      `${`${plan.largest?.table}/${plan.largest?.dataset}`.padEnd(38)} ` +
      `${"".padStart(16)} ${mb(plan.largest?.bytes ?? 0).padStart(9)}`,
  );
  console.log(
    `\nreference data, one generation each: ${mb(plan.oneGeneration)}; with two of the largest: ` +
      `${mb(plan.totalBytes)} = ${(share * 100).toFixed(1)} % of D1's 10 GB (the line is ${MOVE_AT * 100} %: ` +
      `${share > MOVE_AT ? "PAST it" : "below it"})`,
  );
}
