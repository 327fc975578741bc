import { CsvParser } from "../datasets/registers/csv.mjs";
import asnCsv from "../datasets/ip/ip-asn.sample.csv?raw";
import countryCsv from "../datasets/ip/ip-country.sample.csv?raw";
import samples from "../datasets/ip/samples.json";
import torText from "../datasets/ip/tor-exit-addresses.sample.txt?raw";
import { rangeKey } from "../src/platform/ip-address";
import { readRange, recordValues, RangeFlattener, torExitAddress, type RangeDatasetName, type RangeRow } from "../src/products/ip/datasets";
import type { Coverage } from "../src/db/coverage";
import { admin } from "./helpers";

/**
 * The shipped IP samples (datasets/ip: real rows of the @ip-location-db files), read the way scripts/import-ip.mjs reads
 * a file (CSV, readRange, recordValues, one RangeFlattener per family) and installed through the operator routes.
 */
const TEXT: Record<RangeDatasetName, string> = { "ip-country": countryCsv, "ip-asn": asnCsv };

export function sampleRows(dataset: RangeDatasetName, text = TEXT[dataset]): RangeRow[] {
  const parser = new CsvParser();
  const flatteners = { 4: new RangeFlattener(4), 6: new RangeFlattener(6) };
  const rows: RangeRow[] = [];
  for (const record of [...parser.push(text), ...parser.end()]) {
    const range = readRange(record[0] ?? "", record[1] ?? "", null);
    const values = recordValues(dataset, record);
    if (range && values) rows.push(...flatteners[range[0].version].push(range[0], range[1], values));
  }
  return [...rows, ...flatteners[4].end(), ...flatteners[6].end()];
}

export const torRows = (text = torText) => text.split("\n").flatMap((line) => {
  const ip = torExitAddress(line);
  return ip ? [rangeKey(ip)] : [];
});

export const SAMPLE_VERSIONS = { "ip-country": samples["ip-country"].version, "ip-asn": samples["ip-asn"].version, "ip-tor-exits": "2026-11-22-sample" };

/** Installs rows as one import of `dataset` (begin, rows, complete, sweep); returns the generation. */
/** `coverage` defaults to a whole file's (`full`): the samples stand in for the published files unless a test says not. */
export async function installIpDataset(dataset: RangeDatasetName | "ip-tor-exits", rows: unknown[], version: string, coverage: Coverage = { kind: "full" }) {
  const { generation } = await admin<{ generation: number }>("POST", `/ip-datasets/${dataset}/imports`);
  for (let i = 0; i < rows.length; i += 500) await admin("POST", `/ip-datasets/${dataset}/imports/${generation}/rows`, { rows: rows.slice(i, i + 500) });
  await admin("POST", `/ip-datasets/${dataset}/imports/${generation}/complete`, { version, records: rows.length, coverage });
  await admin("POST", `/ip-datasets/${dataset}/sweep`);
  return generation;
}

/** The three shipped samples, each unless it is already installed at the sample's version. */
export async function installIpSamples() {
  const { datasets } = await admin<{ datasets: { name: string; version: string | null }[] }>("GET", "/ip-datasets");
  const installed = new Map(datasets.map((d) => [d.name, d.version]));
  const wanted = [
    ["ip-country", () => sampleRows("ip-country")],
    ["ip-asn", () => sampleRows("ip-asn")],
    ["ip-tor-exits", () => torRows()],
  ] as const;
  for (const [name, rows] of wanted) if (installed.get(name) !== SAMPLE_VERSIONS[name]) await installIpDataset(name, rows(), SAMPLE_VERSIONS[name]);
}

/** `n` distinct addresses the country sample places (6.0.0.0-8.10.5.255 is one US row), different on every call. */
export function placedIps(n: number): string[] {
  const base = Math.floor(Math.random() * 0xfffff) * 16;
  return Array.from({ length: n }, (_, i) => {
    const v = base + i;
    return `6.${(v >> 16) & 0xff}.${(v >> 8) & 0xff}.${v & 0xff}`;
  });
}

/** A private address, different on every call: answered after the special-purpose table, free. */
export const privateIp = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
