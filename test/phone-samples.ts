import manifest from "../datasets/phone/manifest.json";
import sampleTsv from "../datasets/phone/sample.tsv?raw";
import { TABLE_DATASETS, type TableDataset } from "../src/products/phone/datasets";
import { admin } from "./helpers";

/**
 * The committed sample of the phone prefix tables (datasets/phone/sample.tsv: every row of calling codes 41 and 44,
 * a few disposable numbers of each), installed through the operator routes as scripts/import-phone.mjs does.
 */
export function phoneSampleRows(): Map<TableDataset, [string, string, string][]> {
  const rows = new Map<TableDataset, [string, string, string][]>(TABLE_DATASETS.map((name) => [name, []]));
  for (const line of sampleTsv.split("\n").filter(Boolean)) {
    const [dataset, code, prefix, value] = line.split("\t") as [TableDataset, string, string, string];
    rows.get(dataset)!.push([code, prefix, value]);
  }
  return rows;
}

/** The version a sample is installed as: the build's own version, tagged. */
export const sampleVersion = (dataset: TableDataset) =>
  `${manifest.datasets.find((d) => d.name === dataset)!.version}-sample`;

/** Installs the sample of `datasets` (default all four) at their sample versions. */
export async function installPhoneSamples(datasets: readonly TableDataset[] = TABLE_DATASETS) {
  const all = phoneSampleRows();
  for (const dataset of datasets) {
    const rows = all.get(dataset)!;
    const version = sampleVersion(dataset);
    for (let i = 0; i < rows.length; i += 2_000)
      await admin("POST", `/phone-datasets/${dataset}/rows`, { version, rows: rows.slice(i, i + 2_000) });
    await admin("POST", `/phone-datasets/${dataset}/install`, {
      version,
      records: rows.length,
      coverage: { kind: "sample", countries: ["CH", "GB"] },
    });
  }
}

/** Uninstalls datasets (their rows go too), so answers say they are missing. */
export async function uninstallPhoneDatasets(datasets: readonly TableDataset[]) {
  for (const dataset of datasets) await admin("DELETE", `/phone-datasets/${dataset}`, { keep: null });
}

/** Random digits, so values are unique per call and files sharing the database never race on counts. */
export const digits = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => String(b % 10)).join("");

/** A valid UK mobile number in +44 7400, a range the sample allocates to one carrier (Three). */
export const ukMobile = () => `+447400${digits(6)}`;

/** What the sample's `dataset` answers for a national number: the value of its longest prefix there, or null. */
export function sampleValue(dataset: TableDataset, code: string, national: string): string | null {
  const rows = phoneSampleRows()
    .get(dataset)!
    .filter(([c, prefix]) => c === code && national.startsWith(prefix));
  return rows.sort((a, b) => b[1].length - a[1].length)[0]?.[2] ?? null;
}
