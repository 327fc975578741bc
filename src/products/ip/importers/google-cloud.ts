import { cidrRows, dayOf, every, isObject, LIST_SANITY, readJson, source, WHOLE, type IpImporter } from "./importer";

/**
 * Google Cloud's `cloud.json`: `{syncToken, creationTime: "2026-11-20T10:13:07.000", prefixes: [{ipv4Prefix |
 * ipv6Prefix, service: "Google Cloud", scope: "us-central1"}]}`: the external ranges of customers' Google Cloud
 * resources (not Google's own services, which `goog.json` lists).
 */
export const googleCloudImporter: IpImporter = {
  dataset: "hosting-google-cloud",
  publisher: "Google Cloud",
  sources: [source("REFRESH_URL_HOSTING_GOOGLE_CLOUD", "https://www.gstatic.com/ipranges/cloud.json")],
  format: WHOLE,
  formatName: "Google Cloud cloud.json",
  cadence: every("day"),
  sanity: LIST_SANITY,
  license: "published by Google for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "every external range of Google Cloud customers' resources" },
  fullFloor: { records: 300, basis: "Google's cloud.json: about 800 prefixes, observed 2025" },
  sample: "google-cloud.sample.json",
  parse(text) {
    const file = readJson(text, "Google Cloud cloud.json");
    if (!isObject(file) || !Array.isArray(file.prefixes)) throw new Error("Google Cloud cloud.json: no prefixes array");
    const blocks = file.prefixes
      .map((p) => (isObject(p) ? (p.ipv4Prefix ?? p.ipv6Prefix) : null))
      .map((p) => (typeof p === "string" ? p : ""));
    const { rows, skipped } = cidrRows(blocks, this.publisher);
    return { rows, skipped, version: dayOf(file.creationTime) };
  },
};
