// `npm run datasets:import -- <register> <file>... [--version YYYY-MM-DD] [--url http://127.0.0.1:8787] [--replace]`
//
// Loads a company register's published CSV into the API's D1 through the operator routes: the file is streamed through
// datasets/registers/csv.mjs (never held in memory), each row is read by the register's own `parseRow`
// (src/products/entity/registers.ts, loaded as TypeScript by Node), and rows go to POST /admin/v1/registers/<register>/rows
// in batches (--batch, default 1,000; a few in flight). POST .../complete {version, records} then installs the register
// at the file's publication date, so GET /api/v1/status/data lists it. Re-importing upserts; --replace first removes
// every row (the register answers `register_not_installed` until the import completes).
//
//   <register>   gleif-lei | uk-companies-house (ip-country, ip-asn and ip-tor-exits go to scripts/import-ip.mjs)
//   <file>       a CSV (unzipped), or - for standard input; several files (Companies House parts) load as one version
//   --version    the publication date, when the file name does not carry it (GLEIF: 20261122-0800-gleif-goldencopy-...;
//                Companies House: BasicCompanyData-2026-11-01-part1_7.csv)
//   --url        the API (default http://127.0.0.1:$PORT, PORT 8787); the token is ADMIN_TOKEN from the environment or .dev.vars
//   --json       print the summary as one JSON line (benchmarks read it)
//
// Exports importRegister(), registerRows() and loadSamples() (the shipped samples, for `npm run dev`).
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { csvBatches } from "../datasets/registers/csv.mjs";
import { ROOT, adminClient, callWithRetry, readDevVars, rowPoster } from "./lib/local.mjs";
import "./lib/ts-imports.mjs";
import { runIpImport } from "./import-ip.mjs";

const { REGISTERS, REGISTER_NAMES, isRegisterName } = await import("../src/products/entity/registers.ts");

export { REGISTER_NAMES };

/** The samples shipped in datasets/registers (synthetic rows in the real formats; see its README). */
export const SAMPLES = [
  { register: "uk-companies-house", file: join(ROOT, "datasets", "registers", "uk-companies-house.sample.csv"), version: "2026-11-22-sample" },
  { register: "gleif-lei", file: join(ROOT, "datasets", "registers", "gleif-lei.sample.csv"), version: "2026-11-22-sample" },
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
        const header = record.map((name) => name.trim());
        const missing = register.columns.filter((column) => !header.includes(column));
        if (missing.length) throw new Error(`not a ${registerName} file: its header lacks ${missing.join(", ")}`);
        indexes = register.columns.map((column) => [column, header.indexOf(column)]);
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
export async function importRegister({ register, files, version, baseUrl, token, batchSize = 1_000, concurrency = 4, replace = false, log = console.log }) {
  if (!isRegisterName(register)) throw new Error(`unknown register ${register} (one of ${REGISTER_NAMES.join(", ")})`);
  if (!files?.length) throw new Error("name at least one file (or - for standard input)");
  if (!token) throw new Error("no operator token: set ADMIN_TOKEN in the environment or in .dev.vars");
  const fileVersions = files.map((file) => (file === "-" ? null : REGISTERS[register].versionFromFileName(file)));
  version ??= fileVersions.find(Boolean);
  if (!version) throw new Error("the file name carries no publication date: pass --version YYYY-MM-DD");
  if (!VERSION.test(version)) throw new Error(`--version must be YYYY-MM-DD, got ${version}`);

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

  let skipped = 0;
  const rate = (sent) => Math.round(sent / ((performance.now() - started) / 1000));
  const poster = rowPoster({ admin, path: `/registers/${register}/rows`, batchSize, concurrency, progress: (sent) => log(`[import] ${register}: ${sent} rows sent (${rate(sent)} rows/s)`) });
  for (const file of files) {
    for await (const part of registerRows(register, openText(file))) {
      skipped += part.skipped;
      for (const row of part.rows) await poster.push(row);
    }
  }
  const records = await poster.finish();
  await callWithRetry(admin, "POST", `/registers/${register}/complete`, { version, records });
  const seconds = (performance.now() - started) / 1000;
  const summary = { register, version, records, skipped, seconds: Math.round(seconds * 100) / 100, rows_per_second: Math.round(records / seconds) };
  log(`[import] ${register} ${version}: ${records} rows installed${skipped ? `, ${skipped} without a usable identifier skipped` : ""} in ${summary.seconds} s`);
  return summary;
}

/**
 * Loads the shipped samples into the API at `baseUrl` (idempotent). A register already installed from a real file
 * (a version without the `-sample` tag) is left alone.
 */
export async function loadSamples({ baseUrl, token, log = console.log }) {
  const { data } = await adminClient(baseUrl, token).call("GET", "/registers");
  const current = new Map(data.registers.map((r) => [r.name, r.version]));
  for (const sample of SAMPLES) {
    const version = current.get(sample.register);
    if (version && !version.endsWith("-sample")) {
      log(`[import] ${sample.register}: ${version} is installed; sample not loaded`);
      continue;
    }
    await importRegister({ ...sample, files: [sample.file], baseUrl, token, log: () => {} });
    log(`[import] ${sample.register}: sample loaded (${sample.version})`);
  }
}

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
    else if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else if (!options.register) options.register = arg;
    else options.files.push(arg);
  }
  return options;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // IP datasets (ip-country, ip-asn, ip-tor-exits) have their own importer: scripts/import-ip.mjs.
  if (options.register?.startsWith("ip-")) return runIpImport(options);
  if (options.help || !options.register) {
    console.log("usage: npm run datasets:import -- <gleif-lei|uk-companies-house> <file.csv|->... [--version YYYY-MM-DD] [--url URL] [--replace] [--batch N] [--json]");
    console.log("       npm run datasets:import -- <ip-country|ip-asn|ip-tor-exits> <file|->... --version YYYY-MM-DD [--url URL]   (or --package: the installed @ip-location-db copy)");
    return options.help ? 0 : 1;
  }
  for (const n of [options.batchSize, options.concurrency]) {
    if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 5_000)) throw new Error("--batch and --concurrency take a whole number from 1 to 5000");
  }
  const baseUrl = options.baseUrl ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
  const token = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
  const summary = await importRegister({ ...options, baseUrl, token, log: options.json ? () => {} : console.log });
  if (options.json) console.log(JSON.stringify({ ...summary, max_rss_bytes: process.resourceUsage().maxRSS * 1024 }));
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      console.error(`[import] ${err.message}`);
      process.exitCode = 1;
    },
  );
}
