/**
 * IP datasets (docs/ip.md "Datasets"): the file formats and overlap rule the importer applies, the operator routes
 * (an import is a generation, switched to in one step), `/status/data`, and answers while a dataset is not installed.
 */
import { describe, expect, it } from "vitest";
import { formatIp, fromRangeKey, parseIp, rangeKey } from "../../../src/platform/ip-address";
import {
  IP_DATASETS,
  readRange,
  RangeFlattener,
  recordValues,
  torExitAddress,
  versionFromPackageVersion,
} from "../../../src/products/ip/datasets";
import type { IpResult } from "../../../src/products/ip/result";
import { admin, bearer, call, createAccount, json } from "../../helpers";
import { installIpDataset, installIpSamples, sampleRows, SAMPLE_VERSIONS, torRows } from "../../ip-samples";

const ends = (rows: unknown[][]) =>
  rows.map(([s, e, ...v]) => [formatIp(fromRangeKey(s as string)), formatIp(fromRangeKey(e as string)), ...v]);

describe("IP dataset files", () => {
  it("reads address and numeric editions of the published CSV", () => {
    expect(readRange("1.0.0.0", "1.0.0.255", null)).toEqual([parseIp("1.0.0.0"), parseIp("1.0.0.255")]);
    expect(readRange("16777216", "16777471", 4)).toEqual([parseIp("1.0.0.0"), parseIp("1.0.0.255")]);
    expect(readRange("42540528726795050063891204319802818560", "42540528806023212578155541913346768895", 6)).toEqual([
      parseIp("2001:200::"),
      parseIp("2001:200:ffff:ffff:ffff:ffff:ffff:ffff"),
    ]);
    for (const [a, b, family] of [
      ["16777216", "16777471", null],
      ["1.0.0.9", "1.0.0.0", null],
      ["1.0.0.0", "2001::", null],
      ["4294967296", "4294967296", 4],
    ] as const) {
      expect(readRange(a, b, family), `${a}-${b}`).toBeNull();
    }
    expect(recordValues("ip-country", ["1.0.0.0", "1.0.0.255", "au"])).toEqual(["AU"]);
    expect(recordValues("ip-asn", ["1.0.0.0", "1.0.0.255", "13335", "Cloudflare, Inc."])).toEqual([
      13335,
      "Cloudflare, Inc.",
    ]);
    expect(recordValues("ip-asn", ["1.0.0.0", "1.0.0.255", "x", "Nobody"])).toBeNull();
    expect(versionFromPackageVersion("2.3.2026061719")).toBe("2026-06-17");
  });

  it("resolves overlapping rows as published: the later, nested row answers inside, the wider one around it", () => {
    // Rows of geo-whois-asn-country-ipv4-num.csv (2.3.2026061719): 2.58.192.0/23 DE holds 2.58.193.15 BE and
    // 2.58.193.16-2.58.193.255 DE.
    const flat = new RangeFlattener(4);
    const rows = [
      ...flat.push(parseIp("2.58.192.0")!, parseIp("2.58.193.255")!, ["DE"]),
      ...flat.push(parseIp("2.58.193.15")!, parseIp("2.58.193.15")!, ["BE"]),
      ...flat.push(parseIp("2.58.193.16")!, parseIp("2.58.193.255")!, ["DE"]),
      ...flat.push(parseIp("2.58.194.0")!, parseIp("2.58.194.9")!, ["FR"]),
      ...flat.end(),
    ];
    expect(ends(rows)).toEqual([
      ["2.58.192.0", "2.58.193.14", "DE"],
      ["2.58.193.15", "2.58.193.15", "BE"],
      ["2.58.193.16", "2.58.193.255", "DE"],
      ["2.58.194.0", "2.58.194.9", "FR"],
    ]);
    const partial = new RangeFlattener(4);
    const cut = [
      ...partial.push(parseIp("10.0.0.0")!, parseIp("10.0.0.20")!, ["A"]),
      ...partial.push(parseIp("10.0.0.10")!, parseIp("10.0.0.30")!, ["B"]),
      ...partial.end(),
    ];
    expect(ends(cut)).toEqual([
      ["10.0.0.0", "10.0.0.9", "A"],
      ["10.0.0.10", "10.0.0.30", "B"],
    ]);
    const unsorted = new RangeFlattener(4);
    unsorted.push(parseIp("2.0.0.0")!, parseIp("2.0.0.1")!, []);
    expect(() => unsorted.push(parseIp("1.0.0.0")!, parseIp("1.0.0.1")!, [])).toThrow(/not sorted/);
  });

  it("reads the Tor Project's exit list and its bulk edition", () => {
    expect(
      torRows(
        "ExitNode ABC\nPublished 2026-11-22 06:41:09\nExitAddress 185.220.101.1 2026-11-22 " +
          "08:03:12\n185.220.101.5\n# note\nnot an address",
      ),
    ).toEqual([rangeKey(parseIp("185.220.101.1")!), rangeKey(parseIp("185.220.101.5")!)]);
    expect(torExitAddress("ExitAddress 2a0b:f4c2::1 2026-11-22 07:41:05")).toEqual(parseIp("2a0b:f4c2::1"));
  });
});

describe("IP datasets in D1", () => {
  const lookup = async (ip: string) => {
    const acct = await createAccount({ pack: 5 });
    return (await call<IpResult>("/api/v1/ip", json({ ip }, { Authorization: `Bearer ${acct.key}` }))).body;
  };

  it(
    "installs each import as a generation, lists it in /status/data, and switches answers only on " + "complete",
    async () => {
      await installIpSamples();
      const acct = await createAccount();
      const status = await call<{ datasets: { name: string; version: string; records: number }[] }>(
        "/api/v1/status/data",
        bearer(acct.key),
      );
      const listed = Object.fromEntries(status.body.data.datasets.map((d) => [d.name, [d.version, d.records]]));
      expect(listed).toMatchObject({
        "ip-country": [SAMPLE_VERSIONS["ip-country"], sampleRows("ip-country").length],
        "ip-asn": [SAMPLE_VERSIONS["ip-asn"], sampleRows("ip-asn").length],
        "ip-tor-exits": [SAMPLE_VERSIONS["ip-tor-exits"], 3],
      });

      const { generation } = await admin<{ generation: number }>("POST", "/ip-datasets/ip-country/imports");
      const everywhereFr = [[rangeKey(parseIp("0.0.0.0")!), rangeKey(parseIp("255.255.255.255")!), "FR"]];
      await admin("POST", `/ip-datasets/ip-country/imports/${generation}/rows`, { rows: everywhereFr });
      expect((await lookup("193.0.0.1")).data.country).toBe("NL");
      await admin("POST", `/ip-datasets/ip-country/imports/${generation}/complete`, {
        version: "2026-11-23-test",
        records: 1,
        coverage: { kind: "full" },
      });
      const after = await lookup("193.0.0.1");
      expect([after.data.country, after.data.sources[1]]).toEqual([
        "FR",
        { dataset: "ip-country", version: "2026-11-23-test", coverage: "full" },
      ]);
      expect((await lookup("10.0.0.1")).data.country).toBeNull();
      const swept = await admin<{ deleted: number; done: boolean }>("POST", "/ip-datasets/ip-country/sweep");
      expect(swept).toEqual({ dataset: "ip-country", deleted: sampleRows("ip-country").length, done: true });
      const late = await call(
        `/admin/v1/ip-datasets/ip-country/imports/${generation}/rows`,
        json({ rows: everywhereFr }, { Authorization: "Bearer test-admin-token" }),
      );
      expect([late.status, late.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
      await installIpDataset("ip-country", sampleRows("ip-country"), SAMPLE_VERSIONS["ip-country"]);
    },
  );

  it("refuses rows that are not keys, countries or AS numbers", async () => {
    const { generation } = await admin<{ generation: number }>("POST", "/ip-datasets/ip-asn/imports");
    const post = (rows: unknown[]) =>
      call(
        `/admin/v1/ip-datasets/ip-asn/imports/${generation}/rows`,
        json({ rows }, { Authorization: "Bearer test-admin-token" }),
      );
    const key = rangeKey(parseIp("1.0.0.0")!);
    for (const rows of [
      [["1.0.0.0", "1.0.0.255", 13335, "x"]],
      [[key, key, "13335", "x"]],
      [[rangeKey(parseIp("1.0.0.9")!), key, 1, null]],
    ]) {
      expect((await post(rows)).status, JSON.stringify(rows)).toBe(422);
    }
    expect(
      (await call("/admin/v1/ip-datasets/ip-nothing/imports", { method: "POST", ...bearer("test-admin-token") }))
        .status,
    ).toBe(404);
  });

  it("answers without a dataset that is not installed: null fields and their reason, never a 500", async () => {
    await installIpSamples();
    for (const name of IP_DATASETS) await admin("DELETE", `/ip-datasets/${name}`);
    const bare = await lookup("17.253.144.10");
    expect(bare.data).toMatchObject({
      valid: true,
      reserved: false,
      placed: false,
      country: null,
      asn: null,
      network: null,
      hosting: null,
      tor: null,
      anonymous: null,
      reason: "dataset_not_installed",
      risk_score: 0,
    });
    expect(bare.data.sources).toEqual([{ dataset: "ip-special-purpose", version: "2025.1", coverage: "full" }]);
    expect(bare.meta.credits_used).toBe(0);
    const acct = await createAccount({ pack: 5 });
    const asn = await call("/api/v1/ip/asn/15169", bearer(acct.key));
    expect([asn.status, asn.body.error.code]).toEqual([501, "ASN_INDEX_UNAVAILABLE"]);
    const status = await call<{ datasets: { name: string }[] }>("/api/v1/status/data", bearer(acct.key));
    // Listed as not installed (the scheduled refresh keeps it, so its state is shown), with no version answers could
    // cite.
    expect(status.body.data.datasets.find((d) => d.name === "ip-asn")).toMatchObject({
      version: null,
      records: null,
      loaded_at: null,
    });
    await installIpSamples();
    expect((await lookup("17.253.144.10")).data).toMatchObject({ placed: true, asn: 714, tor: null });
  });
});
