/**
 * The publishers' list formats (docs/ip.md "Datasets"): each importer against the shipped sample in that format, and
 * the city CSV edition of @ip-location-db/geolite2-city. The mmdb edition is read from the installed package itself
 * in datasets/ip/city-mmdb.test.mjs (Node).
 */
import { describe, expect, it } from "vitest";
import { formatIp, fromRangeKey, parseIp, rangeKey } from "../../../src/platform/ip-address";
import { cityValues, type RangeRow } from "../../../src/products/ip/datasets";
import { cityRecordOf } from "../../../src/products/ip/importers/city-mmdb";
import { importerOf, LIST_IMPORTERS } from "../../../src/products/ip/importers";
import { wholeReader } from "../../../src/products/ip/importers/importer";
import { LIST_SAMPLES, sampleRows } from "../../ip-samples";

/** Rows with their ends as addresses, for reading. */
const ends = (rows: RangeRow[] | string[]) =>
  (rows as RangeRow[]).map(([s, e, ...v]) => [formatIp(fromRangeKey(s)), formatIp(fromRangeKey(e)), ...v]);
const parse = (dataset: string, text = LIST_SAMPLES[dataset]!) => importerOf(dataset as never)!.parse(text);

describe("publisher list importers", () => {
  it("every importer names its dataset, sources, cadence, coverage and sample", () => {
    expect(LIST_IMPORTERS.map((i) => i.dataset)).toEqual([
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
    for (const i of LIST_IMPORTERS) {
      // Azure publishes its file under a new name every week behind an HTML page: refreshed only once a URL is set.
      const url = i.dataset === "hosting-azure" ? "off" : "https://";
      expect(
        i.sources.every((s) => s.defaultUrl.startsWith(url) && /^REFRESH_URL_[A-Z0-9_]+$/.test(s.urlVar)),
        i.dataset,
      ).toBe(true);
      expect([60, 1_440, 10_080], i.dataset).toContain(i.cadence.everyMinutes);
      expect(i.cadence.staleAfterMinutes, i.dataset).toBe(3 * i.cadence.everyMinutes);
      expect(i.format.kind, i.dataset).toBe(i.dataset === "ip-tor-exits" ? "lines" : "whole");
      expect(LIST_SAMPLES[i.dataset], i.dataset).toBeTruthy();
    }
    expect(importerOf("vpn-x4bnet")!.coverage.kind).toBe("partial");
    expect(importerOf("proxy-firehol")!.coverage.kind).toBe("partial");
    expect(importerOf("ip-tor-exits")!.coverage.kind).toBe("full");
  });

  it("FireHOL firehol_proxies.netset: header skipped, addresses and blocks, dated by its `This File Date`", () => {
    const { rows, version, skipped } = parse("proxy-firehol", `${LIST_SAMPLES["proxy-firehol"]}not-an-address\n`);
    expect(version).toBe("2026-11-23");
    expect(skipped).toBe(1);
    expect(ends(rows)).toEqual([
      ["47.88.3.19", "47.88.3.19", null],
      ["103.152.112.0", "103.152.112.255", null],
      ["185.199.229.156", "185.199.229.156", null],
    ]);
  });

  it("AWS ip-ranges.json: IPv4 and IPv6 prefixes of every service, duplicates merged, dated by createDate", () => {
    const { rows, version, skipped } = parse("hosting-aws");
    expect([version, skipped]).toEqual(["2026-11-20", 0]);
    expect(ends(rows)).toEqual([
      ["3.5.140.0", "3.5.143.255", "Amazon Web Services"],
      ["52.94.236.248", "52.94.236.255", "Amazon Web Services"],
      ["54.239.0.0", "54.239.0.15", "Amazon Web Services"],
      ["2600:1f14::", "2600:1f14:1fff:ffff:ffff:ffff:ffff:ffff", "Amazon Web Services"],
    ]);
    expect(() => parse("hosting-aws", "<html>")).toThrow(/not JSON/);
    expect(() => parse("hosting-aws", "{}")).toThrow(/no prefixes/);
  });

  it("Google Cloud cloud.json: ipv4Prefix and ipv6Prefix entries, dated by creationTime", () => {
    const { rows, version } = parse("hosting-google-cloud");
    expect(version).toBe("2026-11-20");
    expect(ends(rows)).toEqual([
      ["34.34.128.0", "34.34.191.255", "Google Cloud"],
      ["35.185.0.0", "35.185.127.255", "Google Cloud"],
      ["2600:1900:4000::", "2600:1900:400f:ffff:ffff:ffff:ffff:ffff", "Google Cloud"],
    ]);
  });

  it("Azure Service Tags: the AzureCloud tag (the regional tags are inside it); no date in the file", () => {
    const { rows, version } = parse("hosting-azure");
    expect(version).toBeNull();
    expect(ends(rows)).toEqual([
      ["20.33.0.0", "20.33.255.255", "Microsoft Azure"],
      ["40.64.0.0", "40.127.255.255", "Microsoft Azure"],
      ["2603:1000::", "2603:10ff:ffff:ffff:ffff:ffff:ffff:ffff", "Microsoft Azure"],
    ]);
    // A file without the AzureCloud tag: every tag's prefixes.
    const regional = JSON.stringify({
      changeNumber: 1,
      cloud: "Public",
      values: [{ name: "AzureCloud.westeurope", id: "x", properties: { addressPrefixes: ["40.68.0.0/14"] } }],
    });
    expect(ends(parse("hosting-azure", regional).rows)).toEqual([["40.68.0.0", "40.71.255.255", "Microsoft Azure"]]);
  });

  it("Oracle public_ip_ranges.json: every region's CIDRs, dated by last_updated_timestamp", () => {
    const { rows, version } = parse("hosting-oracle");
    expect(version).toBe("2026-11-18");
    expect(ends(rows).map((r) => r[0])).toEqual(["129.146.0.0", "130.61.0.0", "134.70.8.0"]);
  });

  it("DigitalOcean's geofeed, Cloudflare's ips-v4/ips-v6 and X4BNet's VPN list: one CIDR block a line", () => {
    expect(ends(parse("hosting-digitalocean").rows)).toEqual([
      ["165.227.0.0", "165.227.15.255", "DigitalOcean"],
      ["167.99.0.0", "167.99.31.255", "DigitalOcean"], // two adjacent /20s: one range
      ["2604:a880::", "2604:a880:ffff:ffff:ffff:ffff:ffff:ffff", "DigitalOcean"],
    ]);
    const cloudflare = parse("hosting-cloudflare");
    // 22 blocks; 104.16.0.0/13 and 104.24.0.0/14 touch and read as one range.
    expect([cloudflare.rows.length, cloudflare.skipped]).toEqual([21, 0]);
    expect(ends(cloudflare.rows)).toContainEqual(["104.16.0.0", "104.27.255.255", "Cloudflare"]);
    const vpn = parse("vpn-x4bnet", `${LIST_SAMPLES["vpn-x4bnet"]}# comment\n\nnot-a-cidr\n`);
    expect([vpn.rows.length, vpn.skipped]).toEqual([4, 1]);
    expect(ends(vpn.rows)[0]).toEqual(["5.253.204.0", "5.253.207.255", null]);
  });

  it("reads as the scheduled refresh does: each whole file parsed in read, nothing kept in the state", () => {
    const cloudflare = importerOf("hosting-cloudflare")!;
    const [v4, v6] = [
      LIST_SAMPLES["hosting-cloudflare"]!.split("\n")
        .filter((l) => l.includes("."))
        .join("\n"),
      "2400:cb00::/32\n2606:4700::/32\n",
    ];
    const reader = wholeReader(cloudflare);
    const rows = [v4, v6].flatMap((text, file) => {
      const state = reader.begin(file, `ips-v${file === 0 ? 4 : 6}`);
      const read = reader.read([[text]], state);
      expect([read.skipped, state, reader.end(state)]).toEqual([0, {}, []]);
      return read.rows;
    });
    expect(rows).toEqual(cloudflare.parse(`${v4}\n${v6}`).rows);
    expect(
      ends(rows as RangeRow[])
        .slice(-2)
        .map((r) => r[0]),
    ).toEqual(["2400:cb00::", "2606:4700::"]);
  });

  it(
    "the Tor list streams a line at a time: the refresh's reader gives the rows parse gives, relay lines not " +
      "skipped",
    () => {
      const tor = importerOf("ip-tor-exits")!;
      const lines = LIST_SAMPLES["ip-tor-exits"]!.split("\n").map((line) => [line]);
      const halves = [lines.slice(0, 5), lines.slice(5)].map((part) => tor.reader!.read(part, {}));
      expect([...new Set(halves.flatMap((h) => h.rows))].sort()).toEqual(tor.parse(LIST_SAMPLES["ip-tor-exits"]!).rows);
      expect(halves.reduce((n, h) => n + h.skipped, 0)).toBe(0);
    },
  );

  it("the Tor Project's exit-addresses and bulk exit list: the same exits, dated by the latest scan", () => {
    const exits = parse("ip-tor-exits");
    const keys = ["185.220.101.1", "185.220.101.2", "2a0b:f4c2::1"].map((ip) => rangeKey(parseIp(ip)!)).sort();
    expect([exits.rows, exits.version, exits.skipped]).toEqual([keys, "2026-11-22", 0]);
    const bulk = parse("ip-tor-exits", "185.220.101.1\n185.220.101.2\n2a0b:f4c2::1\n");
    expect([bulk.rows, bulk.version]).toEqual([keys, null]);
    expect(parse("ip-tor-exits", "ExitAddress nonsense 2026-11-22 08:00:00\n").skipped).toBe(1);
  });
});

describe("ip-city", () => {
  it(
    "reads the geolite2-city CSV edition: city, region, postcode and coordinates; nothing for a country-only " +
      "network",
    () => {
      const rows = ends(sampleRows("ip-city"));
      expect(rows).toContainEqual([
        "8.8.0.0",
        "8.8.7.255",
        "Westfield",
        "Massachusetts",
        "01085",
        42.1293,
        -72.7522,
        null,
        "US",
      ]);
      expect(rows).toContainEqual([
        "2a00:1450:4001::",
        "2a00:1450:4001:ffff:ffff:ffff:ffff:ffff",
        "Frankfurt am Main",
        "Hesse",
        "60313",
        50.1169,
        8.6837,
        null,
        "DE",
      ]);
      // 8.8.8.0/24 is placed in the US only (the file's default point for the country): no row.
      expect(rows.find((r) => r[0] === "8.8.8.0")).toBeUndefined();
    },
  );

  it(
    "reads both record shapes of an mmdb: ip-location-db's flat one and MaxMind's own (with an accuracy " + "radius)",
    () => {
      expect(
        cityValues(
          cityRecordOf({
            city: "Ashburn",
            country_code: "US",
            state1: "Virginia",
            postcode: "20149",
            latitude: 39.04690170288086,
            longitude: -77.49030303955078,
          }),
        ),
      ).toEqual(["Ashburn", "Virginia", "20149", 39.0469, -77.4903, null, "US"]);
      const maxmind = {
        country: { iso_code: "DE" },
        city: { names: { en: "Frankfurt am Main" } },
        subdivisions: [{ names: { en: "Hesse" } }],
        postal: { code: "60313" },
        location: { latitude: 50.1169, longitude: 8.6837, accuracy_radius: 20 },
      };
      expect(cityValues(cityRecordOf(maxmind))).toEqual([
        "Frankfurt am Main",
        "Hesse",
        "60313",
        50.1169,
        8.6837,
        20,
        "DE",
      ]);
      expect(
        cityValues(
          cityRecordOf({
            country: { iso_code: "US" },
            location: { latitude: 37.751, longitude: -97.822, accuracy_radius: 1000 },
          }),
        ),
      ).toBeNull();
      expect(cityValues(cityRecordOf({ country_code: "US", latitude: 37.751, longitude: -97.822 }))).toBeNull();
    },
  );
});
