// `npm run datasets:import -- <ip-country|ip-asn|ip-city|ip-tor-exits|hosting-*|vpn-*> <file>...
//      [--version YYYY-MM-DD] [--url URL]`
// `npm run datasets:import -- <ip-country|ip-asn|ip-city> --package`
//      (the installed @ip-location-db copy, dated by its version)
//
// Streams IP datasets into the API's D1 through the operator routes (docs/ip.md, "Datasets"): a file is read a chunk at
// a time (datasets/registers/csv.mjs), each row is read by src/products/ip/datasets.ts (address or `-num` editions,
// overlapping rows resolved by RangeFlattener, one per file and family), and rows are posted as keys in batches
// (--batch, default 2,000; a few in flight) into a new generation; `complete` switches answers to it in one step and
// `sweep` then deletes the generation it replaced. Several files (the IPv4 and IPv6 editions) load as one version.
//
//   ip-country     @ip-location-db/geo-whois-asn-country CSV: start,end,country_code
//   ip-asn         @ip-location-db/asn CSV: start,end,as_number,as_organization
//   ip-city        @ip-location-db/geolite2-city CSV, or its .mmdb edition (walked with mmdb-lib)
//   ip-tor-exits, hosting-*, vpn-*   the publishers' own files, read by src/products/ip/importers/ (one module each;
//                  --version defaults to the date the file states, else today)
//
// Exports importIpDataset(), fileRows() and loadIpSamples() (the shipped samples, for `npm run dev`).
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { csvRecords } from "../datasets/registers/csv.mjs";
import { coverageFor } from "./lib/coverage.mjs";
import { ROOT, adminClient, callWithRetry, defaultAdminUrl, readDevVars, rowPoster } from "./lib/local.mjs";
import "./lib/ts-imports.mjs";

const { IP_DATASETS, RangeFlattener, SAMPLE_COVERAGE, familyFromFileName, isIpDataset, readRange, recordValues } =
  await import("../src/products/ip/datasets.ts");
const { LIST_IMPORTERS, importerOf } = await import("../src/products/ip/importers/index.ts");
const { mmdbCityRows } = await import("../src/products/ip/importers/city-mmdb.ts");

const VERSION = /^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/;
const SAMPLE_DIR = join(ROOT, "datasets", "ip");

const open = (file) =>
  file === "-"
    ? process.stdin.setEncoding("utf8")
    : createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 16 });

const readText = async (file) => {
  let text = "";
  for await (const chunk of open(file)) text += chunk;
  return text;
};

/**
 * The rows of one range-table file, as posted: `[startKey, endKey, ...values]`; `skipped` counts the rest. An `.mmdb`
 * file (ip-city) is walked whole; CSV files stream.
 */
export async function* fileRows(dataset, file, counts) {
  if (dataset === "ip-city" && file.endsWith(".mmdb")) {
    yield* mmdbCityRows(readFileSync(file));
    return;
  }
  const family = file === "-" ? null : familyFromFileName(file);
  const flatteners = { 4: new RangeFlattener(4), 6: new RangeFlattener(6) };
  for await (const record of csvRecords(open(file))) {
    const range = readRange(record[0] ?? "", record[1] ?? "", family);
    const values = range && recordValues(dataset, record);
    // A city file's network placed only in a country is read, and has no row (the country is ip-country's).
    if (range && !values && dataset === "ip-city") continue;
    if (!range || !values) {
      counts.skipped += 1;
      continue;
    }
    yield* flatteners[range[0].version].push(range[0], range[1], values);
  }
  yield* flatteners[4].end();
  yield* flatteners[6].end();
}

/**
 * What a whole published range file covers (src/db/coverage.ts); the list datasets' is their importer's `coverage`
 * (src/products/ip/importers/). A `-sample` version is a sample.
 */
export const FILE_COVERAGE = {
  "ip-country": { kind: "full", note: "Every routed address the file places in a country." },
  "ip-asn": { kind: "full", note: "Every announced range the file maps to an ASN." },
  "ip-city": {
    kind: "full",
    note: "Every network of GeoLite2 City placed below country level; the file publishes no accuracy radius.",
  },
};

/**
 * A publisher's list files (Tor, hosting-*, vpn-*) read by the dataset's importer: their texts joined, parsed whole.
 * Resolves `{rows, version, skipped}` (the version the file states, or null).
 */
export async function listRows(dataset, files) {
  const texts = [];
  for (const file of files) texts.push(await readText(file));
  return importerOf(dataset).parse(texts.join("\n"));
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Imports `files` as one version of `dataset` covering `coverage` (default: what the publisher's whole file covers);
 * resolves `{dataset, version, records, skipped, seconds, rows_per_second}`.
 * @param {{ dataset: string, files: string[], version?: string, coverage?: string, baseUrl: string, token: string,
 *   batchSize?: number, concurrency?: number, log?: (...args: unknown[]) => void }} options
 */
export async function importIpDataset({
  dataset,
  files,
  version,
  coverage,
  baseUrl,
  token,
  batchSize = 2_000,
  concurrency = 4,
  log = console.log,
}) {
  if (!isIpDataset(dataset)) throw new Error(`unknown IP dataset ${dataset} (one of ${IP_DATASETS.join(", ")})`);
  if (!files?.length) throw new Error("name at least one file (or - for standard input), or --package");
  const list = importerOf(dataset) ? await listRows(dataset, files) : null;
  version ??= list ? (list.version ?? today()) : undefined;
  if (!version || !VERSION.test(version)) throw new Error("pass --version YYYY-MM-DD: the date the file was published");
  if (!token) throw new Error("no operator token: set ADMIN_TOKEN in the environment or in .dev.vars");
  const covers = coverageFor({
    version,
    fallback: FILE_COVERAGE[dataset] ?? importerOf(dataset).coverage,
    given: coverage,
  });
  const admin = adminClient(baseUrl, token);
  const started = performance.now();
  const { data } = await callWithRetry(admin, "POST", `/ip-datasets/${dataset}/imports`);
  const generation = data.generation;
  const counts = { records: 0, skipped: 0 };
  const rate = (sent) => Math.round(sent / ((performance.now() - started) / 1000));
  const path = `/ip-datasets/${dataset}/imports/${generation}/rows`;
  const poster = rowPoster({
    admin,
    path,
    batchSize,
    concurrency,
    reportEvery: 200_000,
    progress: (sent) => log(`[import] ${dataset}: ${sent} rows sent (${rate(sent)} rows/s)`),
  });
  if (list) {
    counts.skipped = list.skipped;
    for (const row of list.rows) await poster.push(row);
  } else for (const file of files) for await (const row of fileRows(dataset, file, counts)) await poster.push(row);
  counts.records = await poster.finish();
  await callWithRetry(admin, "POST", `/ip-datasets/${dataset}/imports/${generation}/complete`, {
    version,
    records: counts.records,
    coverage: covers,
  });
  let swept = 0;
  for (let done = false; !done; ) {
    const { data: sweep } = await callWithRetry(admin, "POST", `/ip-datasets/${dataset}/sweep`);
    swept += sweep.deleted;
    done = sweep.done;
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    dataset,
    version,
    generation,
    records: counts.records,
    skipped: counts.skipped,
    swept,
    seconds: Math.round(seconds * 100) / 100,
    rows_per_second: Math.round(counts.records / seconds),
  };
  log(
    `[import] ${dataset} ${version}: ${counts.records} rows installed as generation ` +
      `${generation}${counts.skipped ? `, ${counts.skipped} unreadable rows skipped` : ""} in ${summary.seconds} s`,
  );
  return summary;
}

/** The version of a list sample: the date its file states (else the day the samples were made), tagged -sample. */
export const listSampleVersion = (importer) =>
  `${importer.parse(readFileSync(join(SAMPLE_DIR, importer.sample), "utf8")).version ?? "2026-11-22"}-sample`;

/** Every shipped sample (datasets/ip): the range tables' (samples.json) and one per list importer. */
export function ipSamples() {
  const manifest = JSON.parse(readFileSync(join(SAMPLE_DIR, "samples.json"), "utf8"));
  return [
    ...Object.entries(manifest).map(([dataset, s]) => ({
      dataset,
      file: join(SAMPLE_DIR, s.file),
      version: s.version,
    })),
    ...LIST_IMPORTERS.map((importer) => ({
      dataset: importer.dataset,
      file: join(SAMPLE_DIR, importer.sample),
      version: listSampleVersion(importer),
    })),
  ];
}

/** The shipped samples, each unless the dataset is installed from a real file (a version not `-sample`). */
export async function loadIpSamples({ baseUrl, token, log = console.log }) {
  const { data } = await adminClient(baseUrl, token).call("GET", "/ip-datasets");
  const current = new Map(data.datasets.map((d) => [d.name, d.version]));
  const loaded = [];
  for (const sample of ipSamples()) {
    const version = current.get(sample.dataset);
    // Installed from a real file (a version not `-sample`), or already at this sample: kept.
    if (version === sample.version || (version && !version.endsWith("-sample"))) continue;
    await importIpDataset({
      ...sample,
      files: [sample.file],
      coverage: SAMPLE_COVERAGE,
      baseUrl,
      token,
      log: () => {},
    });
    loaded.push(sample.dataset);
  }
  if (loaded.length) log(`[import] IP samples loaded: ${loaded.join(", ")}`);
}

/** `datasets:import` with an IP dataset name, its arguments as scripts/import-register.mjs parsed them. */
export async function runIpImport(options) {
  const dataset = options.register;
  let { files, version } = options;
  if (options.package) {
    const { packageFiles, packageDatasetVersion } = await import("../datasets/ip/build.mjs");
    files = packageFiles(dataset);
    version ??= packageDatasetVersion(dataset);
  }
  const baseUrl = defaultAdminUrl(options.baseUrl);
  const token = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
  const summary = await importIpDataset({
    ...options,
    dataset,
    files,
    version,
    baseUrl,
    token,
    log: options.json ? () => {} : console.log,
  });
  if (options.json) console.log(JSON.stringify({ ...summary, max_rss_bytes: process.resourceUsage().maxRSS * 1024 }));
  return 0;
}
