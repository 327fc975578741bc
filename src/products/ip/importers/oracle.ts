import {
  cidrRows,
  dayOf,
  every,
  isObject,
  LIST_SANITY,
  readJson,
  source,
  strings,
  WHOLE,
  type IpImporter,
} from "./importer";

/**
 * Oracle Cloud's `public_ip_ranges.json`: `{last_updated_timestamp: "2026-11-20T10:13:07.123456", regions: [{region,
 * cidrs: [{cidr, tags: ["OCI" | "OSN" | "OBJECT_STORAGE"]}]}]}`.
 */
export const oracleImporter: IpImporter = {
  dataset: "hosting-oracle",
  publisher: "Oracle Cloud",
  sources: [source("REFRESH_URL_HOSTING_ORACLE", "https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json")],
  format: WHOLE,
  formatName: "Oracle Cloud public_ip_ranges.json",
  cadence: every("week"),
  sanity: LIST_SANITY,
  license: "published by Oracle for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "every public range of Oracle Cloud Infrastructure regions" },
  fullFloor: {
    records: 200,
    basis: "OCI's public_ip_ranges.json: several hundred CIDRs over some 50 regions, observed 2025",
  },
  sample: "oracle-public-ip-ranges.sample.json",
  parse(text) {
    const file = readJson(text, "Oracle public_ip_ranges.json");
    if (!isObject(file) || !Array.isArray(file.regions))
      throw new Error("Oracle public_ip_ranges.json: no regions array");
    const blocks = file.regions
      .filter(isObject)
      .flatMap((r) => (Array.isArray(r.cidrs) ? r.cidrs.filter(isObject).map((c) => strings([c.cidr])[0] ?? "") : []));
    return { ...cidrRows(blocks, this.publisher), version: dayOf(file.last_updated_timestamp) };
  },
};
