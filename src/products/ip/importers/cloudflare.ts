import { cidrRows, every, LIST_SANITY, listLines, source, WHOLE, type IpImporter } from "./importer";

/** Cloudflare's `ips-v4` and `ips-v6`: one CIDR block a line (the two texts are joined before parsing). */
export const cloudflareImporter: IpImporter = {
  dataset: "hosting-cloudflare",
  publisher: "Cloudflare",
  sources: [
    source("REFRESH_URL_HOSTING_CLOUDFLARE_V4", "https://www.cloudflare.com/ips-v4"),
    source("REFRESH_URL_HOSTING_CLOUDFLARE_V6", "https://www.cloudflare.com/ips-v6"),
  ],
  format: WHOLE,
  formatName: "one CIDR block a line (ips-v4, ips-v6)",
  cadence: every("week"),
  sanity: LIST_SANITY,
  license: "published by Cloudflare for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "Cloudflare's edge network ranges" },
  fullFloor: { records: 20, basis: "Cloudflare publishes 15 IPv4 and 7 IPv6 ranges (cloudflare.com/ips, 2025)" },
  sample: "cloudflare-ips.sample.txt",
  parse(text) {
    return { ...cidrRows(listLines(text), this.publisher), version: null };
  },
};
