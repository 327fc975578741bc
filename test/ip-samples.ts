import { CsvParser } from "../datasets/registers/csv.mjs";
import awsJson from "../datasets/ip/aws-ip-ranges.sample.json?raw";
import azureJson from "../datasets/ip/azure-service-tags.sample.json?raw";
import cloudflareText from "../datasets/ip/cloudflare-ips.sample.txt?raw";
import digitalOceanCsv from "../datasets/ip/digitalocean-geofeed.sample.csv?raw";
import googleJson from "../datasets/ip/google-cloud.sample.json?raw";
import asnCsv from "../datasets/ip/ip-asn.sample.csv?raw";
import cityCsv from "../datasets/ip/ip-city.sample.csv?raw";
import countryCsv from "../datasets/ip/ip-country.sample.csv?raw";
import oracleJson from "../datasets/ip/oracle-public-ip-ranges.sample.json?raw";
import samples from "../datasets/ip/samples.json";
import torText from "../datasets/ip/tor-exit-addresses.sample.txt?raw";
import vpnText from "../datasets/ip/x4bnet-vpn-ipv4.sample.txt?raw";
import proxyText from "../datasets/ip/firehol-proxies.sample.netset?raw";
import { rangeKey } from "../src/platform/ip-address";
import {
  readRange,
  recordValues,
  RangeFlattener,
  SAMPLE_COVERAGE,
  torExitAddress,
  type IpDatasetName,
  type RangeDatasetName,
  type RangeRow,
} from "../src/products/ip/datasets";
import type { Coverage } from "../src/db/coverage";
import { LIST_IMPORTERS } from "../src/products/ip/importers";
import { admin } from "./helpers";

/**
 * The shipped IP samples (datasets/ip: real rows of the @ip-location-db files), read the way scripts/import-ip.mjs
 * reads a file (CSV, readRange, recordValues, one RangeFlattener per family) and installed through the operator routes.
 */
const TEXT: Record<RangeDatasetName, string> = { "ip-country": countryCsv, "ip-asn": asnCsv, "ip-city": cityCsv };

/** Each list importer's shipped sample, in the publisher's format (datasets/ip). */
export const LIST_SAMPLES: Record<string, string> = {
  "hosting-aws": awsJson,
  "hosting-google-cloud": googleJson,
  "hosting-azure": azureJson,
  "hosting-oracle": oracleJson,
  "hosting-digitalocean": digitalOceanCsv,
  "hosting-cloudflare": cloudflareText,
  "vpn-x4bnet": vpnText,
  "proxy-firehol": proxyText,
  "ip-tor-exits": torText,
};

/** A list sample as its importer reads it, with the version `npm run dev` gives it (scripts/import-ip.mjs). */
export function listSample(dataset: string) {
  const importer = LIST_IMPORTERS.find((i) => i.dataset === dataset)!;
  const parsed = importer.parse(LIST_SAMPLES[dataset]!);
  return { rows: parsed.rows, version: `${parsed.version ?? "2026-11-22"}-sample` };
}

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

export const torRows = (text = torText) =>
  text.split("\n").flatMap((line) => {
    const ip = torExitAddress(line);
    return ip ? [rangeKey(ip)] : [];
  });

export const SAMPLE_VERSIONS = {
  "ip-country": samples["ip-country"].version,
  "ip-asn": samples["ip-asn"].version,
  "ip-city": samples["ip-city"].version,
  "ip-tor-exits": "2026-11-22-sample",
};

/**
 * Installs rows as one import of `dataset` (begin, rows, complete, sweep) covering `coverage` (the samples are
 * samples unless a test says otherwise); returns the generation.
 */
export async function installIpDataset(
  dataset: IpDatasetName,
  rows: unknown[],
  version: string,
  coverage: Coverage = SAMPLE_COVERAGE,
) {
  const { generation } = await admin<{ generation: number }>("POST", `/ip-datasets/${dataset}/imports`);
  for (let i = 0; i < rows.length; i += 500)
    await admin("POST", `/ip-datasets/${dataset}/imports/${generation}/rows`, { rows: rows.slice(i, i + 500) });
  await admin("POST", `/ip-datasets/${dataset}/imports/${generation}/complete`, {
    version,
    records: rows.length,
    coverage,
  });
  await admin("POST", `/ip-datasets/${dataset}/sweep`);
  return generation;
}

/**
 * Every shipped sample (range tables and lists), each unless it is already installed at the sample's version and
 * coverage.
 */
export async function installIpSamples() {
  const { datasets } = await admin<{ datasets: { name: string; version: string | null; coverage: Coverage | null }[] }>(
    "GET",
    "/ip-datasets",
  );
  const installed = new Map(datasets.map((d) => [d.name, `${d.version}/${d.coverage?.kind}`]));
  // As `npm run dev` has them: the range tables stand in for the full package tables it loads (coverage full), the
  // lists are the publishers' samples (coverage sample: an address they lack is null, not false).
  const wanted: [IpDatasetName, () => { rows: unknown[]; version: string }, Coverage][] = [
    ["ip-country", () => ({ rows: sampleRows("ip-country"), version: SAMPLE_VERSIONS["ip-country"] }), FULL],
    ["ip-asn", () => ({ rows: sampleRows("ip-asn"), version: SAMPLE_VERSIONS["ip-asn"] }), FULL],
    ["ip-city", () => ({ rows: sampleRows("ip-city"), version: SAMPLE_VERSIONS["ip-city"] }), FULL],
    ...LIST_IMPORTERS.map((i): [IpDatasetName, () => { rows: unknown[]; version: string }, Coverage] => [
      i.dataset,
      () => listSample(i.dataset),
      SAMPLE_COVERAGE,
    ]),
  ];
  await Promise.all(
    wanted.map(async ([name, sample, coverage]) => {
      const { rows, version } = sample();
      if (installed.get(name) !== `${version}/${coverage.kind}`) await installIpDataset(name, rows, version, coverage);
    }),
  );
}

const FULL: Coverage = { kind: "full" };

/** `n` distinct addresses the country sample places (6.0.0.0-8.10.5.255 is one US row), different on every call. */
export function placedIps(n: number): string[] {
  const base = Math.floor(Math.random() * 0xfffff) * 16;
  return Array.from({ length: n }, (_, i) => {
    const v = base + i;
    return `6.${(v >> 16) & 0xff}.${(v >> 8) & 0xff}.${v & 0xff}`;
  });
}

/** A private address, different on every call: answered after the special-purpose table, free. */
export const privateIp = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
