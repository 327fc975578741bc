import { cidrRows, dayOf, every, isObject, LIST_SANITY, readJson, source, WHOLE, type IpImporter } from "./importer";

/**
 * AWS `ip-ranges.json`: `{syncToken, createDate: "2026-11-20-10-13-07", prefixes: [{ip_prefix, region, service,
 * network_border_group}], ipv6_prefixes: [{ipv6_prefix, ...}]}`. Every prefix is Amazon's, whatever the service (the
 * `AMAZON` service repeats the others), so all are read.
 */
export const awsImporter: IpImporter = {
  dataset: "hosting-aws",
  publisher: "Amazon Web Services",
  sources: [source("REFRESH_URL_HOSTING_AWS", "https://ip-ranges.amazonaws.com/ip-ranges.json")],
  format: WHOLE,
  formatName: "AWS ip-ranges.json",
  cadence: every("day"),
  sanity: LIST_SANITY,
  license: "published by AWS for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "every range AWS publishes, all services and regions" },
  fullFloor: { records: 2_000, basis: "AWS ip-ranges.json: about 10,000 IPv4 and IPv6 prefixes, observed 2025" },
  sample: "aws-ip-ranges.sample.json",
  parse(text) {
    const file = readJson(text, "AWS ip-ranges.json");
    if (!isObject(file) || !Array.isArray(file.prefixes)) throw new Error("AWS ip-ranges.json: no prefixes array");
    const v4 = file.prefixes.map((p) => (isObject(p) ? p.ip_prefix : null));
    const v6 = (Array.isArray(file.ipv6_prefixes) ? file.ipv6_prefixes : []).map((p) =>
      isObject(p) ? p.ipv6_prefix : null,
    );
    const { rows, skipped } = cidrRows(
      [...v4, ...v6].map((p) => (typeof p === "string" ? p : "")),
      this.publisher,
    );
    return { rows, skipped, version: dayOf(typeof file.createDate === "string" ? file.createDate : null) };
  },
};
