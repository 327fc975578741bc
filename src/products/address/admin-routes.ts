import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../db/client";
import { databaseOf } from "../../db/reference";
import { coverageBody } from "../../db/coverage";
import { installDataset } from "../../db/datasets";
import { ok } from "../../http/envelope";
import { notFound, validationFailed } from "../../http/errors";
import { BODY_BYTES } from "../../http/body";
import { jsonBody, pathParams } from "../../http/validation";
import { ADDRESS_DATASET_NAMES, ADDRESS_DATASETS, isAddressDatasetName, type AddressDataset } from "./datasets";
import { canonicalPostcode } from "./postcodes";
import { upsertPremises } from "./premise-store";
import { indexRows } from "./autocomplete/index-rows";
import {
  activeGeneration,
  addressData,
  installedDatasets,
  removeDataset,
  upsertPostcodes,
  upsertStreets,
} from "./store";
import type { AppEnv } from "../../types";

const datasetParam = pathParams(z.object({ dataset: z.string().max(64) }));

function datasetNamed(name: string): AddressDataset {
  if (!isAddressDatasetName(name)) throw notFound("Address dataset");
  return ADDRESS_DATASETS[name];
}

const name = (max: number) => z.string().min(1).max(max);
const country = z.string().regex(/^[A-Z]{2}$/);

/** Rows as scripts/import-address.mjs posts them (records.ts `PostcodeRow` and `StreetRow`). */
const postcodeRow = z.object({
  country,
  postcode: name(20),
  locality: name(200).nullable(),
  region: name(200).nullable(),
  region_code: name(20).nullable(),
  subregion: name(200).nullable(),
  subregion_code: name(20).nullable(),
  latitude: z.number().min(-90).max(90).nullable(),
  longitude: z.number().min(-180).max(180).nullable(),
  alias: z.boolean(),
});
const streetRow = z.object({ country, postcode: name(20), street: name(300), locality: name(200).nullable() });
/** A listed house number in `premiseNumber`'s spelling (`12`, `12 BIS`). */
const premiseRow = z.object({
  country,
  postcode: name(20),
  street: name(300),
  number: z.string().regex(/^[1-9]\d{0,4}( [A-Z0-9]{1,10})?$/),
});

const rowsBody = z.object({
  postcodes: z.array(postcodeRow).max(5_000).default([]),
  streets: z.array(streetRow).max(5_000).default([]),
  premises: z.array(premiseRow).max(5_000).default([]),
});

/** Publication date of the data, optionally tagged (`2026-11-22-sample`). */
const versionSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/, "A date YYYY-MM-DD, optionally followed by -tag.");

const REMOVE_BUDGET_MS = 20_000;

/** Loading the address reference datasets: rows in batches, then `complete` installs the dataset at its version. */
export const adminAddressDatasetRoutes = new Hono<AppEnv>()
  .get("/address-datasets", async (c) => {
    const installed = await installedDatasets(database(c.env));
    const datasets = ADDRESS_DATASET_NAMES.map((n) => ({
      name: n,
      countries: ADDRESS_DATASETS[n].countries,
      holds: ADDRESS_DATASETS[n].holds,
      installed: installed.has(n),
      version: installed.get(n)?.version ?? null,
      coverage: installed.get(n)?.coverage ?? null,
    }));
    return ok(c, { datasets });
  })
  .post("/address-datasets/:dataset/rows", datasetParam, jsonBody(rowsBody, BODY_BYTES.bulk), async (c) => {
    const dataset = datasetNamed(c.req.valid("param").dataset);
    const { postcodes, streets, premises } = c.req.valid("json");
    const errors: Record<string, string[]> = {};
    postcodes.forEach((row, i) => {
      if (!dataset.holds.includes("postcodes") || !dataset.countries.includes(row.country))
        errors[`postcodes.${i}`] = [`${dataset.name} holds no postcodes of ${row.country}.`];
      else if (canonicalPostcode(row.country, row.postcode) !== row.postcode)
        errors[`postcodes.${i}.postcode`] = [
          `Not in the country's spelling: ${canonicalPostcode(row.country, row.postcode)}.`,
        ];
    });
    streets.forEach((row, i) => {
      if (!dataset.holds.includes("streets") || !dataset.countries.includes(row.country))
        errors[`streets.${i}`] = [`${dataset.name} holds no streets of ${row.country}.`];
    });
    premises.forEach((row, i) => {
      if (!dataset.holds.includes("premises") || !dataset.countries.includes(row.country))
        errors[`premises.${i}`] = [`${dataset.name} holds no house numbers of ${row.country}.`];
    });
    if (Object.keys(errors).length) throw validationFailed(errors);
    // Rows loaded by hand go into the generation answers read (read from DB; the rows' database is their own).
    const reference = await addressData(c.env);
    await Promise.all([
      upsertPostcodes(reference, dataset.name, postcodes),
      upsertStreets(reference, dataset.name, streets),
      upsertPremises(reference, dataset.name, premises),
    ]);
    // The autocomplete index of these rows, in the same generation (src/products/address/autocomplete/index-rows.ts).
    const target = { dataset: dataset.name, generation: activeGeneration(reference, dataset.name) };
    await indexRows(databaseOf(c.env, "address"), target, {
      streets,
      postcodes,
      placesOfStreets: !dataset.holds.includes("postcodes"),
    });
    return ok(c, {
      dataset: dataset.name,
      postcodes: postcodes.length,
      streets: streets.length,
      premises: premises.length,
    });
  })
  .post(
    "/address-datasets/:dataset/complete",
    datasetParam,
    jsonBody(z.object({ version: versionSchema, records: z.int().min(0), coverage: coverageBody })),
    async (c) => {
      const dataset = datasetNamed(c.req.valid("param").dataset);
      const { version, records, coverage } = c.req.valid("json");
      const installed = await installDataset(database(c.env), dataset.name, {
        version,
        records,
        now: Date.now(),
        coverage,
      });
      return ok(c, {
        name: dataset.name,
        version,
        records,
        loaded_at: new Date(installed.loadedAt).toISOString(),
        coverage: installed.coverage,
      });
    },
  )
  .on("DELETE", "/address-datasets/:dataset", datasetParam, async (c) => {
    const dataset = datasetNamed(c.req.valid("param").dataset);
    const removed = await removeDataset(c.env, dataset.name, REMOVE_BUDGET_MS);
    return ok(c, { dataset: dataset.name, installed: false, ...removed });
  });
