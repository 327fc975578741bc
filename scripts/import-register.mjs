// `npm run datasets:import -- <register> <file>... [--version YYYY-MM-DD] [--url http://127.0.0.1:8787] [--replace]`
//
// Loads a company register's published CSV into the API's D1 through the operator routes: the file is streamed through
// datasets/registers/csv.mjs (never held in memory), each row is read by the register's own `parseRow`
// (src/products/entity/registers.ts, loaded as TypeScript by Node), and rows go to POST
// /admin/v1/registers/<register>/rows in batches (--batch, default 1,000; a few in flight). POST .../complete {version,
// records} then installs the register at the file's publication date, so GET /api/v1/status/data lists it. Re-importing
// upserts; --replace first removes every row (the register answers `register_not_installed` until the import
// completes).
//
//   <register>   gleif-lei | uk-companies-house (IP datasets, ip-* hosting-* vpn-*, go to scripts/import-ip.mjs, with
//                --package for the installed @ip-location-db copies)
//   <file>       a CSV (unzipped), or - for standard input; several files (Companies House parts) load as one version
//   --version    the publication date, when the file name does not carry it (GLEIF: 20261122-0800-gleif-goldencopy-...;
//                Companies House: BasicCompanyData-2026-11-01-part1_7.csv)
//   --url        the API (default http://127.0.0.1:$PORT, PORT 8787); the token is ADMIN_TOKEN from the
//                environment or .dev.vars
//   --json       print the summary as one JSON line (benchmarks read it)
//   --coverage, --countries, --coverage-note
//                what the file covers (src/db/coverage.ts); default: the register's own (the publisher's whole file),
//                or `sample` for a -sample version. Say `partial` when loading part of a file.
//
// Exports importRegister(), registerRows() and loadSamples() (the shipped samples, for `npm run dev`).
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { csvBatches, headerIndexes } from "../datasets/registers/csv.mjs";
import { coverageArg, coverageFor } from "./lib/coverage.mjs";
import { ApiError, ROOT, adminClient, callWithRetry, defaultAdminUrl, readDevVars } from "./lib/local.mjs";
import { runIpImport } from "./import-ip.mjs";
import "./lib/ts-imports.mjs";

const { REGISTERS, REGISTER_NAMES, isRegisterName } = await import("../src/products/entity/registers.ts");

export { REGISTER_NAMES };

/** The samples shipped in datasets/registers (synthetic rows in the real formats; see its README). */
export const SAMPLES = [
  {
    register: "uk-companies-house",
    file: join(ROOT, "datasets", "registers", "uk-companies-house.sample.csv"),
    version: "2026-11-22-sample",
  },
  {
    register: "gleif-lei",
    file: join(ROOT, "datasets", "registers", "gleif-lei.sample.csv"),
    version: "2026-11-22-sample",
  },
];

const VERSION = /^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/;

/** Text chunks of a file, or of standard input for `-`. */
function openText(file) {
  if (file === "-") {
    process.stdin.setEncoding("utf8");
    return process.stdin;
  }
  return createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 16 });
}

/**
 * The register rows of one CSV stream, in batches as the parser completes them: `{rows, skipped}` per batch. Only the
 * register's `columns` are read from each record (headers trimmed: Companies House writes ` CompanyNumber`).
 */
export async function* registerRows(registerName, chunks) {
  const register = REGISTERS[registerName];
  let indexes = null;
  for await (const records of csvBatches(chunks)) {
    const rows = [];
    let skipped = 0;
    for (const record of records) {
      if (!indexes) {
        indexes = headerIndexes(record, register.columns, registerName);
        continue;
      }
      const fields = {};
      for (const [column, index] of indexes) fields[column] = record[index] ?? "";
      const row = register.parseRow(fields);
      if (row) rows.push(row);
      else skipped += 1;
    }
    if (rows.length || skipped) yield { rows, skipped };
  }
  if (!indexes) throw new Error(`the ${registerName} file is empty`);
}

/**
 * Streams `files` of `register` into the API at `baseUrl`; resolves `{register, version, records, skipped, seconds,
 * rows_per_second}` once the register is installed at `version`.
 */
export async function importRegister({
  register,
  files,
  version,
  coverage,
  baseUrl,
  token,
  batchSize = 1_000,
  concurrency = 4,
  replace = false,
  log = console.log,
}) {
  if (!isRegisterName(register)) throw new Error(`unknown register ${register} (one of ${REGISTER_NAMES.join(", ")})`);
  if (!files?.length) throw new Error("name at least one file (or - for standard input)");
  if (!token) throw new Error("no operator token: set ADMIN_TOKEN in the environment or in .dev.vars");
  const fileVersions = files.map((file) => (file === "-" ? null : REGISTERS[register].versionFromFileName(file)));
  version ??= fileVersions.find(Boolean);
  if (!version) throw new Error("the file name carries no publication date: pass --version YYYY-MM-DD");
  if (!VERSION.test(version)) throw new Error(`--version must be YYYY-MM-DD, got ${version}`);
  const covers = coverageFor({
    version,
    fallback: REGISTERS[register].coverage,
    given: coverage,
    countries: REGISTERS[register].countries,
  });

  const admin = adminClient(baseUrl, token);
  const started = performance.now();
  if (replace) {
    let removed = 0;
    for (;;) {
      const { data } = await callWithRetry(admin, "DELETE", `/registers/${register}`);
      removed += data.deleted;
      if (data.done) break;
    }
    log(`[import] ${register}: removed ${removed} rows (uninstalled until this import completes)`);
  }

  const inflight = new Set();
  let failure = null;
  let records = 0;
  let skipped = 0;
  let batch = [];
  let nextReport = 100_000;
  const flush = async () => {
    if (failure) throw failure;
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    const sent = callWithRetry(admin, "POST", `/registers/${register}/rows`, { rows })
      .catch((err) => (failure ??= err))
      .finally(() => inflight.delete(sent));
    inflight.add(sent);
    records += rows.length;
    if (records >= nextReport) {
      log(
        `[import] ${register}: ${records} rows sent (${Math.round(records / ((performance.now() - started) / 1000))} ` +
          `rows/s)`,
      );
      nextReport += 100_000;
    }
    while (inflight.size >= concurrency) await Promise.race(inflight);
    if (failure) throw failure;
  };

  for (const file of files) {
    for await (const part of registerRows(register, openText(file))) {
      skipped += part.skipped;
      for (const row of part.rows) {
        batch.push(row);
        if (batch.length >= batchSize) await flush();
      }
    }
  }
  await flush();
  await Promise.all(inflight);
  if (failure) throw failure;
  await callWithRetry(admin, "POST", `/registers/${register}/complete`, { version, records, coverage: covers });
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    register,
    version,
    records,
    skipped,
    seconds: Math.round(seconds * 100) / 100,
    rows_per_second: Math.round(records / seconds),
  };
  log(
    `[import] ${register} ${version}: ${records} rows installed${
      skipped ? `, ${skipped} without a usable identifier skipped` : ""
    } in ${summary.seconds} s`,
  );
  return summary;
}

/**
 * Loads the shipped samples into the API at `baseUrl` (idempotent). A register already at its sample's version is not
 * loaded again (every `npm run dev` calls this); one installed from a real file (a version without the `-sample` tag)
 * is left alone.
 */
export async function loadSamples({ baseUrl, token, log = console.log }) {
  const { data } = await adminClient(baseUrl, token).call("GET", "/registers");
  const current = new Map(data.registers.map((r) => [r.name, r.version]));
  for (const sample of SAMPLES) {
    const version = current.get(sample.register);
    if (version === sample.version) continue;
    if (version && !version.endsWith("-sample")) {
      log(`[import] ${sample.register}: ${version} is installed; sample not loaded`);
      continue;
    }
    const { seconds } = await importRegister({ ...sample, files: [sample.file], baseUrl, token, log: () => {} });
    log(`[import] ${sample.register}: sample loaded (${sample.version}) in ${seconds} s`);
  }
}

/** The importers' command line: the first word names what to load, the others are files; options as in the usage. */
function parseArgs(argv) {
  const options = { files: [], replace: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--version") options.version = value();
    else if (arg === "--url") options.baseUrl = value();
    else if (arg === "--batch") options.batchSize = Number(value());
    else if (arg === "--concurrency") options.concurrency = Number(value());
    else if (arg === "--replace") options.replace = true;
    else if (arg === "--package") options.package = true;
    else if (arg === "--json") options.json = true;
    else if (coverageArg(options, arg, value)) continue;
    else if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else if (!options.name) options.name = arg;
    else options.files.push(arg);
  }
  return options;
}

/**
 * An importer's command line run to its exit code: `import(name, options)` with the API's URL and the operator token,
 * the summary printed as one JSON line with --json (benchmarks read it), any failure printed as `[import] message`.
 */
export function runImporter({ usage, load }) {
  const main = async () => {
    const { name, ...options } = parseArgs(process.argv.slice(2));
    // IP datasets (ip-country, ip-asn, ip-city, ip-tor-exits, hosting-*, vpn-*) have their own importer:
    // scripts/import-ip.mjs.
    if (/^(ip|hosting|vpn)-/.test(name ?? "")) return runIpImport({ ...options, register: name });
    if (options.help || !name) {
      console.log(
        `usage: ${usage} [--version YYYY-MM-DD] [--coverage full|partial|sample] [--countries GB,JE] ` +
          `[--coverage-note TEXT] [--url URL] [--replace] [--batch N] [--concurrency N] [--json]`,
      );
      return options.help ? 0 : 1;
    }
    for (const n of [options.batchSize, options.concurrency]) {
      if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 5_000))
        throw new Error("--batch and --concurrency take a whole number from 1 to 5000");
    }
    const baseUrl = defaultAdminUrl(options.baseUrl);
    const token = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
    const summary = await load(name, { ...options, baseUrl, token, log: options.json ? () => {} : console.log });
    if (options.json) console.log(JSON.stringify({ ...summary, max_rss_bytes: process.resourceUsage().maxRSS * 1024 }));
    return 0;
  };
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      console.error(`[import] ${err instanceof ApiError ? `${err.message} (${err.status})` : err.message}`);
      process.exitCode = 1;
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runImporter({
    usage: "npm run datasets:import -- <gleif-lei|uk-companies-house> <file.csv|->...",
    load: (register, options) => importRegister({ ...options, register }),
  });
}
