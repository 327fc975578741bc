import banCsv from "../datasets/address/samples/fr-ban.sample.csv?raw";
import onspdCsv from "../datasets/address/samples/uk-onspd.sample.csv?raw";
import openNamesCsv from "../datasets/address/samples/uk-os-open-names.sample.csv?raw";
import { fileRecords } from "../datasets/address/records.mjs";
import type { Coverage } from "../src/db/coverage";
import { ADDRESS_DATASETS, type AddressDatasetName } from "../src/products/address/datasets";
import type { PostcodeRow, PremiseRow, StreetRow } from "../src/products/address/records";
import reference from "./fixtures/address-reference.json";
import { admin } from "./helpers";

export const SAMPLE_VERSION = "2026-11-23-sample";

/** What scripts/lib/coverage.mjs records for a sample file. */
export const SAMPLE_COVERAGE: Coverage = {
  kind: "sample",
  note: "Synthetic sample rows shipped with the code, not the publisher's file.",
};

const SAMPLE_TEXT = { "uk-onspd": onspdCsv, "uk-os-open-names": openNamesCsv, "fr-ban": banCsv } as const;

type SampleName = keyof typeof SAMPLE_TEXT;

/** A shipped sample read the way scripts/import-address.mjs reads a file. */
export async function sampleRows(dataset: SampleName) {
  const rows = { postcodes: [] as PostcodeRow[], streets: [] as StreetRow[], premises: [] as PremiseRow[], skipped: 0 };
  for await (const part of fileRecords(ADDRESS_DATASETS[dataset].file!, dataset, [SAMPLE_TEXT[dataset]])) {
    rows.postcodes.push(...part.postcodes);
    rows.streets.push(...part.streets);
    rows.premises.push(...part.premises);
    rows.skipped += part.skipped;
  }
  return rows;
}

/**
 * Posts rows through the operator routes in batches, then installs the dataset at `version` with `coverage` (default:
 * what the dataset's whole file covers, as the importer records it).
 */
export async function installRows(
  dataset: AddressDatasetName,
  version: string,
  postcodes: PostcodeRow[],
  streets: StreetRow[] = [],
  coverage: Coverage = ADDRESS_DATASETS[dataset].coverage,
  premises: PremiseRow[] = [],
) {
  for (let i = 0; i < Math.max(postcodes.length, streets.length, premises.length); i += 400) {
    await admin("POST", `/address-datasets/${dataset}/rows`, {
      postcodes: postcodes.slice(i, i + 400),
      streets: streets.slice(i, i + 400),
      premises: premises.slice(i, i + 400),
    });
  }
  await admin("POST", `/address-datasets/${dataset}/complete`, {
    version,
    records: postcodes.length + streets.length + premises.length,
    coverage,
  });
}

/**
 * The reference rows of the accuracy set's postcodes (test/fixtures/address-reference.json), at the datasets' versions.
 */
export async function installReference() {
  for (const d of reference.datasets)
    await installRows(d.name as AddressDatasetName, d.version, d.rows as PostcodeRow[]);
  return reference.datasets;
}

/** The three shipped samples (UK postcodes and streets, French streets). */
export async function installSamples() {
  for (const name of Object.keys(SAMPLE_TEXT) as SampleName[]) {
    const rows = await sampleRows(name);
    await installRows(name, SAMPLE_VERSION, rows.postcodes, rows.streets, SAMPLE_COVERAGE, rows.premises);
  }
}

/** Everything the address tests read. */
export const installAddressData = async () => ({
  reference: await installReference(),
  samples: await installSamples(),
});

export const versionOf = (dataset: string) =>
  reference.datasets.find((d) => d.name === dataset)?.version ?? SAMPLE_VERSION;

/**
 * Mountain View's ZIP (94043) as `npm run dev` has it from GeoNames' US table: the one row the partner tests and the
 * offline examples look up, installed the same way by every file (the table is global to a runtime, so two files
 * installing it differently would change what the other sees).
 */
export const installMountainViewZip = () =>
  installRows(
    "us-zip-codes",
    "2026-11-25-test",
    [
      {
        alias: false,
        country: "US",
        latitude: 37.4184,
        locality: "Mountain View",
        longitude: -122.088,
        postcode: "94043",
        region: "California",
        region_code: "CA",
        subregion: "Santa Clara",
        subregion_code: null,
      },
    ],
    [],
    // Partial: GeoNames' table misses some PO-box and unique ZIPs.
    { kind: "partial", countries: ["US"] },
  );
