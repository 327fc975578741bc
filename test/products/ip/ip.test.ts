/**
 * IP lookups over HTTP (products.md "IP"; docs/ip.md) on the shipped samples (real rows of @ip-location-db): the fields
 * of an answer, well-known networks, spellings, the special-purpose table before any dataset, test values, the Tor
 * register, `/ip/me`, `/ip/{ip}` and bad input.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { IpResult } from "../../../src/products/ip/result";
import { ADDRESS_SPACE, IPV4_SPECIAL, IPV6_SPECIAL } from "../../fixtures/iana-special-registries.mjs";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installIpDataset, installIpSamples, listSample, SAMPLE_VERSIONS } from "../../ip-samples";
import { SIGNAL_DATASETS } from "../../../src/products/ip/datasets";

const post = (acct: TestAccount, path: string, body: unknown) =>
  call<IpResult>(path, json(body, { Authorization: `Bearer ${acct.key}` }));
const batch = (acct: TestAccount, ips: string[]) =>
  call<{ results: { index: number; input: string; data: IpResult; meta: Record<string, unknown> }[] }>(
    "/api/v1/ip/batch",
    json({ ips }, { Authorization: `Bearer ${acct.key}` }),
  );

const SPECIAL = { dataset: "ip-special-purpose", version: "2025.1", coverage: "full" };
const DATASETS = [
  { dataset: "ip-country", version: SAMPLE_VERSIONS["ip-country"], coverage: "full" },
  { dataset: "ip-asn", version: SAMPLE_VERSIONS["ip-asn"], coverage: "full" },
  { dataset: "ip-city", version: SAMPLE_VERSIONS["ip-city"], coverage: "full" },
  // Consulted, every one; the samples that do not hold the address decided nothing and say so.
  { dataset: "ip-tor-exits", version: SAMPLE_VERSIONS["ip-tor-exits"], coverage: "sample", decided: false },
  ...SIGNAL_DATASETS.map((dataset) => ({
    dataset,
    version: listSample(dataset).version,
    coverage: "sample",
    decided: false,
  })),
];

beforeAll(installIpSamples);

describe("IP lookups", () => {
  it("answers every field of a placed address and bills the opening lookup of a block of five", async () => {
    const acct = await createAccount({ pack: 10 });
    const { status, body } = await post(acct, "/api/v1/ip", { ip: "17.253.144.10" });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      ip: "17.253.144.10",
      version: 4,
      valid: true,
      reserved: false,
      reserved_range: null,
      reserved_name: null,
      placed: true,
      country: "US",
      country_name: "United States",
      continent: "NA",
      // GeoLite2 places 17.253.128.0/18 in the US only (its default point, not a place): no city, and it says why.
      city: null,
      region: null,
      postal_code: null,
      latitude: null,
      longitude: null,
      accuracy_radius_km: null,
      city_reason: "not_in_dataset",
      asn: 714,
      as_name: "Apple Inc.",
      network: "17.253.128.0/17",
      anycast: null,
      hosting: false,
      hosting_provider: null,
      // The installed exit list and VPN list are samples: they cannot say an address is not an exit or a VPN.
      tor: null,
      vpn: null,
      proxy: null,
      tor_reason: "sample_data",
      vpn_reason: "sample_data",
      proxy_reason: "sample_data",
      anonymous: null,
      list: null,
      feedback: null,
      reason: null,
      risk_score: 0,
      risk_components: {},
      risk_level: "low",
      sources: [
        SPECIAL,
        ...DATASETS,
        { dataset: "country-names", version: "countries-list@3.4.1", coverage: "full" },
        { dataset: "hosting-asns", version: "2026-11-23", coverage: "full" },
      ],
    });
    expect(body.meta).toEqual({
      credits_used: 1,
      credits_remaining: 9,
      cache_hit: false,
      suppressed: false,
      ip_lookups_prepaid: 4,
      request_id: body.meta.request_id,
    });
  });

  it("marks public resolvers anycast, placed in no country, and places other networks by country and AS", async () => {
    const acct = await createAccount({ pack: 10 });
    // [ip, country, asn, as_name, network, hosting, anycast]: a resolver's registry country (1.1.1.1 is APNIC's,
    // registered in Australia) is not where its packets come from, so none is given.
    const expected: [string, string | null, number, string, string, boolean, true | null][] = [
      ["8.8.4.4", null, 15169, "Google LLC", "8.8.4.0/24", true, true],
      ["1.1.1.1", null, 13335, "Cloudflare, Inc.", "1.1.1.0/24", true, true],
      ["1.0.0.1", null, 13335, "Cloudflare, Inc.", "1.0.0.0/24", true, true],
      ["9.9.9.9", null, 19281, "Quad9", "9.9.9.0/24", false, true],
      ["149.112.112.112", null, 19281, "Quad9", "149.112.112.0/24", false, true],
      ["208.67.222.222", null, 36692, "Cisco OpenDNS, LLC", "208.67.216.0/21", false, true],
      ["94.140.14.14", null, 212772, "AdGuard Software Limited", "94.140.14.0/23", false, true],
      ["76.76.2.0", null, 398962, "CONTROLD INC.", "76.76.2.0/24", false, true],
      ["13.107.21.200", "US", 8068, "Microsoft Corporation", "13.107.21.0/24", false, null],
      ["17.253.144.10", "US", 714, "Apple Inc.", "17.253.128.0/17", false, null],
      ["2001:4860:4860::8888", null, 15169, "Google LLC", "2001:4860:4840::/42", true, true],
      ["2606:4700:4700::1111", null, 13335, "Cloudflare, Inc.", "2606:4700:4700::/48", true, true],
      ["2620:fe::fe", null, 19281, "Quad9", "2620:fe::/48", false, true],
      ["2a00:1450:4001:800::200e", "IE", 15169, "Google LLC", "2a00:1450::/32", true, null],
    ];
    const { body } = await batch(
      acct,
      expected.map(([ip]) => ip),
    );
    const got = body.data.results.map(({ data: d }) => [
      d.ip,
      d.country,
      d.asn,
      d.as_name,
      d.network,
      d.hosting,
      d.anycast,
    ]);
    expect(got).toEqual(expected);
    const quad9 = body.data.results[3]!.data;
    expect(quad9).toMatchObject({ placed: false, reason: "anycast", city_reason: "anycast", risk_components: {} });
    expect(quad9.sources).toContainEqual({ dataset: "anycast-networks", version: "2026-11-27", coverage: "partial" });
    // Three placing lookups: one credit of five units; the anycast answers are free, as every unplaced one.
    expect(body.meta).toMatchObject({
      requested: 14,
      processed: 14,
      credits_used: 1,
      ip_lookups_prepaid: 2,
      stopped_reason: null,
    });
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it("reads every spelling of an address as that address, and a repeat within 7 days is free", async () => {
    const acct = await createAccount({ pack: 10 });
    const spellings = [
      "2a00:1450:4001:800::200e",
      "2a00:1450:4001:800:0:0:0:200e",
      "2a00:1450:4001:0800:0000:0000:0000:200e",
      "2a00:1450:4001:800::200e".toUpperCase(),
      "[2a00:1450:4001:800::200e]",
    ];
    const { body } = await batch(acct, [...spellings, "::ffff:17.253.144.10", "17.253.144.10", "::ffff:11fd:900a"]);
    expect(body.data.results.map((r) => r.data.ip)).toEqual([
      ...spellings.map(() => "2a00:1450:4001:800::200e"),
      "17.253.144.10",
      "17.253.144.10",
      "17.253.144.10",
    ]);
    expect(body.data.results.map((r) => r.meta.cache_hit)).toEqual([false, true, true, true, true, false, true, true]);
    const again = await call<IpResult>("/api/v1/ip/2a00:1450:4001:800:0:0:0:200e", bearer(acct.key));
    expect([
      again.body.data.ip,
      again.body.meta.cache_hit,
      again.body.meta.credits_used,
      again.body.meta.ip_lookups_prepaid,
    ]).toEqual(["2a00:1450:4001:800::200e", true, 0, 3]);
  });

  it("answers every reserved block from the special-purpose table, never from a dataset, free", async () => {
    const acct = await createAccount({ pack: 0 });
    // Every reserved probe but TEST-NET-1's, whose addresses are the product's test values.
    const reserved = [...IPV4_SPECIAL, ...IPV6_SPECIAL, ...ADDRESS_SPACE].flatMap(([cidr, , probes]) =>
      cidr === "192.0.2.0/24" ? [] : probes.filter((p) => p.reserved).map((p) => p.ip),
    );
    // The published files place some of these (2001:2::/48, 2001:10::/28 and 2001:db8::/32 as JP; 192.88.99.0/24 and
    // 2001::/32 under AS6939): the samples carry those rows, and the table still decides first.
    expect(reserved).toEqual(expect.arrayContaining(["2001:2::", "2001:10::", "2001:db8::"]));
    const { status, body } = await batch(acct, [...reserved, "2001:2::1", "2001:db8::1", "192.88.99.1", "2001::1"]);
    expect(status).toBe(200);
    for (const { data } of body.data.results) {
      expect(data, data.ip).toMatchObject({
        valid: true,
        reserved: true,
        placed: false,
        country: null,
        asn: null,
        network: null,
        hosting: null,
        tor: null,
        anonymous: null,
        reason: "reserved",
        risk_score: 50,
      });
      expect(data.reserved_range, data.ip).toMatch(/\//);
      expect(data.sources).toEqual([SPECIAL]);
    }
    expect(body.meta).toMatchObject({ credits_used: 0, processed: reserved.length + 4, ip_lookups_prepaid: 0 });
    const named = body.data.results.find((r) => r.input === "64:ff9b::a00:1")!.data;
    expect([named.reserved_range, named.reserved_name]).toEqual([
      "64:ff9b::a00:0/104",
      "IPv4-IPv6 Translat. of Private-Use",
    ]);
  });

  it("answers special blocks IANA marks globally reachable from the datasets (AS112)", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await batch(acct, ["2620:4f:8000::1", "192.31.196.1"]);
    const [v6, v4] = body.data.results.map((r) => r.data);
    expect(v6).toMatchObject({
      reserved: false,
      placed: true,
      country: "US",
      asn: 112,
      as_name: "DNS-OARC",
      reason: null,
      risk_score: 0,
    });
    expect(v4).toMatchObject({
      reserved: false,
      placed: false,
      country: null,
      asn: 112,
      reason: "unplaced",
      risk_components: { unplaced: 20 },
    });
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 0]);
  });

  it("flags Tor exits from the installed exit list; only a full list says an address is not one", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await batch(acct, ["185.220.101.1", "2a0b:f4c2::1", "185.220.101.9"]);
    const [exit4, exit6, other] = body.data.results.map((r) => r.data);
    expect(exit4).toMatchObject({
      country: "DE",
      tor: true,
      anonymous: true,
      reason: "tor_exit",
      risk_components: { tor_exit: 80 },
      risk_level: "high",
    });
    expect(exit6).toMatchObject({ tor: true, anonymous: true, reason: "tor_exit" });
    // The sample list: an address it does not hold is unknown, not "not an exit".
    expect(other).toMatchObject({ country: "DE", tor: null, anonymous: null });
    const tor = listSample("ip-tor-exits");
    await installIpDataset("ip-tor-exits", tor.rows, "2026-11-22-full", { kind: "full" });
    try {
      const full = await batch(acct, ["185.220.101.1", "185.220.101.9"]);
      expect(full.body.data.results.map((r) => [r.data.tor, r.data.anonymous])).toEqual([
        [true, true],
        [false, false],
      ]);
      expect(full.body.data.results[1]!.data.sources).toContainEqual({
        dataset: "ip-tor-exits",
        version: "2026-11-22-full",
        coverage: "full",
      });
    } finally {
      await installIpDataset("ip-tor-exits", tor.rows, tor.version);
    }
  });

  it("answers test values canonically, free, with no dataset", async () => {
    const acct = await createAccount({ pack: 0 });
    const { body } = await batch(acct, [
      "192.0.2.1",
      "192.0.2.2",
      "192.0.2.3",
      "192.0.2.4",
      "192.0.2.200",
      "::ffff:192.0.2.1",
    ]);
    const answers = body.data.results.map((r) => r.data);
    expect(answers.map((a) => [a.ip, a.placed, a.country, a.asn, a.reason, a.risk_score, a.risk_level])).toEqual([
      ["192.0.2.1", true, "US", 64496, null, 0, "low"],
      ["192.0.2.2", true, "DE", 64497, "hosting", 40, "medium"],
      ["192.0.2.3", true, "NL", 64498, "tor_exit", 80, "high"],
      ["192.0.2.4", false, null, null, "unplaced", 20, "low"],
      ["192.0.2.200", false, null, null, "reserved", 50, "medium"],
      ["192.0.2.1", true, "US", 64496, null, 0, "low"],
    ]);
    for (const a of answers) expect(a.sources).toEqual([{ dataset: "ip-test-values", version: "1", coverage: "full" }]);
    expect(body.meta).toMatchObject({ credits_used: 0, ip_lookups_prepaid: 0 });
  });

  it("looks up the caller's own address at /ip/me and an address in the path at /ip/{ip}", async () => {
    const acct = await createAccount({ pack: 10 });
    const me = await call<IpResult>("/api/v1/ip/me", bearer(acct.key, { "CF-Connecting-IP": "5.9.0.1" }));
    expect([me.status, me.body.data.ip, me.body.data.asn, me.body.meta.credits_used]).toEqual([
      200,
      "5.9.0.1",
      24940,
      1,
    ]);
    const path = await call<IpResult>("/api/v1/ip/2a00:1450:4001:800::200e", bearer(acct.key));
    expect([path.status, path.body.data.asn, path.body.meta.credits_used, path.body.meta.ip_lookups_prepaid]).toEqual([
      200, 15169, 0, 3,
    ]);
  });

  it("answers a value that is not an address with valid false, free; a malformed request is 422", async () => {
    const acct = await createAccount({ pack: 0 });
    const values = ["not an ip", "1.2.3.256", "fe80::1%eth0", "010.1.1.1", ""];
    const { body } = await batch(acct, values);
    for (const { data } of body.data.results)
      expect([data.valid, data.reason, data.risk_score, data.sources], data.ip).toEqual([false, "invalid_ip", 100, []]);
    expect(body.data.results.map((r) => r.data.ip)).toEqual([
      "not an ip",
      "1.2.3.256",
      "fe80::1%eth0",
      "010.1.1.1",
      "",
    ]);
    expect(body.meta).toMatchObject({ credits_used: 0, processed: 5 });
    const path = await call<IpResult>("/api/v1/ip/nonsense", bearer(acct.key));
    expect([path.status, path.body.data.valid, path.body.meta.credits_used]).toEqual([200, false, 0]);
    const key = await anotherKey(acct);
    for (const bad of [{}, { ip: 42 }, { ip: "1".repeat(101) }]) {
      const { status, body: envelope } = await post({ ...acct, key }, "/api/v1/ip", bad);
      expect([status, envelope.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
    const tooMany = await batch(
      { ...acct, key },
      Array.from({ length: 1_001 }, () => "8.8.8.8"),
    );
    expect([tooMany.status, tooMany.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
  });

  it("answers 402 when the first placing lookup cannot be paid, and needs the ip scope", async () => {
    const broke = await createAccount({ pack: 0 });
    const refused = await post(broke, "/api/v1/ip", { ip: "5.9.0.1" });
    expect([refused.status, refused.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    const scoped = await createAccount({ pack: 5, key: { scopes: ["email"] } });
    const denied = await post(scoped, "/api/v1/ip", { ip: "5.9.0.1" });
    expect([denied.status, denied.body.error.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
  });
});
