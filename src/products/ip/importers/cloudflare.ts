import { cidrRows, listLines, type IpImporter } from "./importer";

/** Cloudflare's `ips-v4` and `ips-v6`: one CIDR block a line (the two texts are joined before parsing). */
export const cloudflareImporter: IpImporter = {
  dataset: "hosting-cloudflare",
  publisher: "Cloudflare",
  sources: ["https://www.cloudflare.com/ips-v4", "https://www.cloudflare.com/ips-v6"],
  format: "one CIDR block a line (ips-v4, ips-v6)",
  cadence: "weekly",
  license: "published by Cloudflare for allow-listing; no licence terms stated",
  coverage: { kind: "full", note: "Cloudflare's edge network ranges" },
  sample: "cloudflare-ips.sample.txt",
  parse(text) {
    return { ...cidrRows(listLines(text), this.publisher), version: null };
  },
};
