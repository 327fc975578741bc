// The full IP range tables written straight into a local D1 database file before a Worker starts on it
// (bench/ip-coverage.mjs): the installed @ip-location-db packages (country and ASN CSVs, the city mmdb), in one
// transaction per dataset, about twice as fast as the operator API import (JSON over HTTP, one D1 statement per
// batch). Never while `wrangler dev` serves the file: the Worker's own D1 writes then fail (SQLITE_BUSY), which is
// why `npm run dev` loads the same tables through the API, after its banner (scripts/lib/dev-datasets.mjs). The rows
// are read by the same functions the API import uses (scripts/import-ip.mjs `fileRows`: CSV through
// readRange/recordValues/RangeFlattener, the mmdb through mmdbCityRows), and the bookkeeping is the import's: a new
// generation, then `ip_datasets` and `datasets` switched to it, then the old generation's rows deleted. A dataset
// already loaded at the installed package's version is skipped, so a second call costs a query.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { packageDatasetVersion, packageFiles, packageLabel } from "../../datasets/ip/build.mjs";
import { FILE_COVERAGE, fileRows } from "../import-ip.mjs";
import { DatabaseSync } from "./sqlite.mjs";

export const FULL_TABLES = {
  "ip-country": {
    table: "ip_country_ranges",
    insert:
      "INSERT INTO ip_country_ranges (generation, start, end, country) VALUES (?, ?, ?, ?) ON CONFLICT (generation, " +
      "start) DO UPDATE SET end = excluded.end, country = excluded.country",
  },
  "ip-asn": {
    table: "ip_asn_ranges",
    insert:
      "INSERT INTO ip_asn_ranges (generation, start, end, asn, name) VALUES (?, ?, ?, ?, ?) ON CONFLICT (generation, " +
      "start) DO UPDATE SET end = excluded.end, asn = excluded.asn, name = excluded.name",
  },
  "ip-city": {
    table: "ip_city_ranges",
    insert: `INSERT INTO ip_city_ranges (generation, start, end, city, region, postal_code, latitude, longitude,
      accuracy_radius_km, country) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (generation, start) DO NOTHING`,
  },
};

/** The local D1 database file of the DB binding (wrangler's miniflare state), or null before migrations made it. */
export function localD1File(root, persistTo = join(root, ".wrangler", "state")) {
  const dir = join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  const withIp = files.filter((f) => {
    const db = new DatabaseSync(join(dir, f), { readOnly: true });
    try {
      return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'ip_datasets'").get() !== undefined;
    } finally {
      db.close();
    }
  });
  if (withIp.length > 1)
    throw new Error(
      `several local D1 databases hold ip_datasets (${withIp.join(", ")}): remove .wrangler/state to start over`,
    );
  return withIp[0] ? join(dir, withIp[0]) : null;
}

/** Loads one dataset's package files into a new generation of the open database; resolves the rows written. */
async function loadDataset(db, dataset, { version, coverage, files, now }) {
  const { table, insert } = FULL_TABLES[dataset];
  const state = db.prepare("SELECT active, staging FROM ip_datasets WHERE name = ?").get(dataset);
  const generation = Math.max(state?.active ?? 0, state?.staging ?? 0) + 1;
  const statement = db.prepare(insert);
  const counts = { skipped: 0 };
  let records = 0;
  db.exec("BEGIN");
  try {
    for (const file of files) {
      for await (const row of fileRows(dataset, file, counts)) {
        statement.run(generation, ...row);
        records += 1;
      }
    }
    db.prepare(
      `INSERT INTO ip_datasets (name, active, staging, version, records, loaded_at) VALUES (?1, ?2, NULL, ?3, ?4, ?5)
       ON CONFLICT (name) DO UPDATE SET active = ?2, staging = NULL, version = ?3, records = ?4, loaded_at = ?5`,
    ).run(dataset, generation, version, records, now);
    // What the file covers goes with its `datasets` row, as the API import records it (src/db/coverage.ts).
    db.prepare(
      `INSERT INTO datasets (name, version, records, loaded_at, coverage) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, records = excluded.records,
         loaded_at = excluded.loaded_at, coverage = excluded.coverage`,
    ).run(dataset, version, records, now, JSON.stringify(coverage));
    db.prepare(`DELETE FROM ${table} WHERE generation <> ?`).run(generation);
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
  return { records, skipped: counts.skipped };
}

/**
 * Loads every full table whose installed package version is not loaded yet into the local D1 file; `datasets` limits
 * which, `files` replaces a dataset's package files (tests load slices of them). Resolves `{loaded: [...names],
 * current: [...names]}` (current: already loaded at that version). Must run while no `wrangler dev` uses the file.
 */
export async function loadFullIpTables({
  file,
  datasets = Object.keys(FULL_TABLES),
  files = {},
  log = console.log,
  now = Date.now(),
}) {
  const db = new DatabaseSync(file);
  const loaded = [];
  const current = [];
  // Nothing else has the file open: a rollback journal (new pages are appended, not copied to a WAL and back) and a
  // large page cache make the bulk insert about a third cheaper; the journal mode is put back afterwards.
  const journal = db.prepare("PRAGMA journal_mode").get().journal_mode;
  try {
    db.exec("PRAGMA synchronous = OFF");
    db.exec("PRAGMA cache_size = -262144");
    if (journal === "wal") db.exec("PRAGMA journal_mode = DELETE");
    for (const dataset of datasets) {
      const version = packageDatasetVersion(dataset);
      const state = db.prepare("SELECT active, version FROM ip_datasets WHERE name = ?").get(dataset);
      if (state?.active != null && state.version === version) {
        current.push(dataset);
        continue;
      }
      const started = performance.now();
      const { records, skipped } = await loadDataset(db, dataset, {
        version,
        coverage: FILE_COVERAGE[dataset],
        files: files[dataset] ?? packageFiles(dataset),
        now,
      });
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      log(
        `[dev] ${dataset}: ${records} rows of ${packageLabel(dataset)} loaded in ${seconds} s${
          skipped ? ` (${skipped} unreadable skipped)` : ""
        }`,
      );
      loaded.push(dataset);
    }
  } finally {
    if (journal === "wal") db.exec("PRAGMA journal_mode = WAL");
    db.close();
  }
  return { loaded, current };
}
