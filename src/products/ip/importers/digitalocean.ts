import { cidrRows, every, LIST_SANITY, listLines, source, WHOLE, type IpImporter } from "./importer";

/**
 * DigitalOcean's geofeed (`google.csv`, RFC 8805): `prefix,country,region,city,postal_code` a line, every range of its
 * droplets and services. Only the prefix is read: where DigitalOcean places a range is a geofeed matter for
 * `ip-country`.
 */
export const digitalOceanImporter: IpImporter = {
  dataset: "hosting-digitalocean",
  publisher: "DigitalOcean",
  sources: [source("REFRESH_URL_HOSTING_DIGITALOCEAN", "https://digitalocean.com/geo/google.csv")],
  format: WHOLE,
  formatName: "RFC 8805 geofeed CSV (prefix,country,region,city,postal_code)",
  cadence: every("day"),
  sanity: LIST_SANITY,
  license: "published by DigitalOcean as a geofeed; no licence terms stated",
  coverage: { kind: "full", note: "every range of DigitalOcean's geofeed" },
  fullFloor: { records: 300, basis: "DigitalOcean's geofeed: over a thousand ranges, observed 2025" },
  sample: "digitalocean-geofeed.sample.csv",
  parse(text) {
    const blocks = listLines(text).map((line) => line.split(",")[0]!.trim());
    return { ...cidrRows(blocks, this.publisher), version: null };
  },
};
