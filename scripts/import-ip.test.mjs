// scripts/import-ip.mjs on the shipped files: every publisher sample read by its importer, the samples `npm run dev`
// loads with their versions, and the city CSV edition where country-only networks are not counted as unreadable.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileRows, ipSamples, listRows } from "./import-ip.mjs";
import { ROOT } from "./lib/local.mjs";

const sample = (name) => join(ROOT, "datasets", "ip", name);

describe("import-ip", () => {
  it("reads each publisher's file through its importer, the version from the file when it states one", async () => {
    expect(await listRows("hosting-aws", [sample("aws-ip-ranges.sample.json")])).toMatchObject({
      version: "2026-11-20",
      skipped: 0,
    });
    const cloudflare = await listRows("hosting-cloudflare", [sample("cloudflare-ips.sample.txt")]);
    expect([cloudflare.rows.length, cloudflare.version]).toEqual([21, null]);
    const tor = await listRows("ip-tor-exits", [sample("tor-bulk-exit-list.sample.txt")]);
    expect(tor.rows).toHaveLength(3);
  });

  it("lists every sample npm run dev loads, tagged -sample", () => {
    const samples = ipSamples();
    expect(samples.map((s) => s.dataset)).toEqual([
      "ip-country",
      "ip-asn",
      "ip-city",
      "hosting-aws",
      "hosting-google-cloud",
      "hosting-azure",
      "hosting-oracle",
      "hosting-digitalocean",
      "hosting-cloudflare",
      "vpn-x4bnet",
      "proxy-firehol",
      "ip-tor-exits",
    ]);
    for (const s of samples) expect(s.version, s.dataset).toMatch(/^\d{4}-\d{2}-\d{2}-sample$/);
  });

  it("reads the city CSV edition: a country-only network is no row and not unreadable", async () => {
    const counts = { skipped: 0 };
    const rows = [];
    for await (const row of fileRows("ip-city", sample("ip-city.sample.csv"), counts)) rows.push(row);
    // 31 networks in the sample, 5 of them placed below the country (Westfield, Ashburn, North Bergen, Brandenburg,
    // Frankfurt).
    expect([rows.length, counts.skipped]).toEqual([5, 0]);
  });
});
