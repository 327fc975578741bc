// @ts-check
// The projection of bench/capacity.mjs: each dataset's bytes per row, measured there, at its publisher's full file,
// with a second generation of the largest dataset (every table a refresh of it writes), in each D1 database that
// holds reference data (`DB` and `REFERENCE_ADDRESS`, src/db/reference.ts; docs/operations.md, "Capacity"), and all
// together as they were in `DB` before the move.
import { readFileSync } from "node:fs";
import { packageFiles } from "../../datasets/ip/build.mjs";

const D1_LIMIT_BYTES = 10 * 1000 ** 3;
const MOVE_AT = 0.6;

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
  // MiB, docs/address.md): at the 231.5 bytes a row this bench measured in the same layout (before migration 0033),
  // 0.117 rows an address. The samples' own ratio (a place entry for nearly every street) would overstate it.
  "autocomplete_tokens/fr-ban": { rows: 3_050_000, source: "BAN index (bench:autocomplete's file)" },
  // The ip-city package's CSV holds a subset; the full table as the MMDB fills it had 3.06 M rows (issue 50).
  "ip_city_ranges/*": { rows: 3_060_000, source: "ip-city (GeoLite2 City, full)" },
  "phone_prefixes/*": { rows: 393_000, source: "phone prefix tables (libphonenumber)" },
};
const IP_PACKAGES = { ip_city_ranges: "ip-city", ip_country_ranges: "ip-country", ip_asn_ranges: "ip-asn" };

/**
 * The D1 databases holding reference data, by table (wrangler.toml, src/db/reference.ts): the registers, IP and
 * phone tables in `DB` beside the account data, the address tables and their autocomplete index in `REFERENCE_ADDRESS`.
 */
export const DATABASES = {
  DB: [
    "register_entities",
    "ip_city_ranges",
    "ip_country_ranges",
    "ip_asn_ranges",
    "ip_signal_ranges",
    "ip_tor_exits",
    "phone_prefixes",
  ],
  REFERENCE_ADDRESS: ["address_postcodes", "address_streets", "address_premises", "autocomplete_tokens"],
};

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

/** A dataset's name across its tables (a table of one dataset: the table's). */
const datasetOf = (line) => (line.dataset === "*" ? line.table : line.dataset);

/**
 * These lines' bytes, plus a second generation of their largest dataset: a refresh writes every table of the dataset
 * anew beside the generation answers read.
 */
function withSecondGeneration(lines) {
  const byDataset = new Map();
  for (const l of lines) byDataset.set(datasetOf(l), (byDataset.get(datasetOf(l)) ?? 0) + l.bytes);
  const [largest, largestBytes] = [...byDataset].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  const oneGeneration = lines.reduce((s, l) => s + l.bytes, 0);
  return { largest, largestBytes, oneGeneration, totalBytes: oneGeneration + largestBytes };
}

/** Each publisher's full file at the bytes per row measured; in each database, and all of it together. */
export function projection(measured, indexed) {
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
  const planned = Object.entries(DATABASES).map(([name, tables]) => ({
    name,
    ...withSecondGeneration(lines.filter((l) => tables.includes(l.table))),
  }));
  return { lines, ...withSecondGeneration(lines), planned };
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
const share = (bytes) => `${((bytes / D1_LIMIT_BYTES) * 100).toFixed(1)} %`;

export function printReport(measured, plan, rows) {
  console.log(`\nbytes per row, measured (dbstat, rows grown to ${rows} a dataset):`);
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
  console.log(
    `${"second generation of the largest dataset".padEnd(42)} ${plan.largest.padEnd(38)} ${"".padStart(16)} ` +
      `${mb(plan.largestBytes).padStart(9)}`,
  );
  const past = (bytes) => (bytes / D1_LIMIT_BYTES > MOVE_AT ? "PAST it" : "below it");
  console.log(
    `\nreference data in one database, as before the move: one generation each: ${mb(plan.oneGeneration)}; with ` +
      `two of the largest: ${mb(plan.totalBytes)} = ${share(plan.totalBytes)} of D1's 10 GB (the line is ` +
      `${MOVE_AT * 100} %: ${past(plan.totalBytes)})`,
  );
  console.log(`each database's reference data against its 10 GB (the line is ${MOVE_AT * 100} %):`);
  for (const d of plan.planned)
    console.log(
      `  ${d.name.padEnd(18)} one generation ${mb(d.oneGeneration).padStart(8)}, with two of ${d.largest}: ` +
        `${mb(d.totalBytes)} = ${share(d.totalBytes)} (${past(d.totalBytes)})`,
    );
}
