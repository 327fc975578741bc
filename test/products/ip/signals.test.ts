/**
 * The third wave of IP answers over HTTP (docs/ip.md): city-level location from `ip-city`, `hosting_provider` from the
 * cloud providers' published ranges, `vpn` from a VPN range list and `tor` from the exit list, each true where a list
 * holds the address and false only where a list with full coverage is installed; sources and coverage; billing as
 * before.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { IpResult } from "../../../src/products/ip/result";
import { bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installIpDataset, installIpSamples, listSample, SAMPLE_VERSIONS } from "../../ip-samples";

const batch = (acct: TestAccount, ips: string[]) =>
  call<{ results: { index: number; input: string; data: IpResult; meta: Record<string, unknown> }[] }>(
    "/api/v1/ip/batch",
    json({ ips }, { Authorization: `Bearer ${acct.key}` }),
  );
const answers = async (acct: TestAccount, ips: string[]) =>
  (await batch(acct, ips)).body.data.results.map((r) => r.data);
const pick = <K extends keyof IpResult>(a: IpResult, keys: K[]) => keys.map((k) => a[k]);

beforeAll(installIpSamples);

describe("IP location below the country", () => {
  it(
    "answers city, region, postal code and coordinates from ip-city, null where it knows only the " + "country",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const [westfield, ashburn, countryOnly, anycast] = await answers(acct, [
        "8.8.0.1",
        "52.94.236.250",
        "13.107.20.1",
        "1.1.1.1",
      ]);
      const fields: (keyof IpResult)[] = [
        "city",
        "region",
        "postal_code",
        "latitude",
        "longitude",
        "accuracy_radius_km",
      ];
      expect(pick(westfield!, fields)).toEqual(["Westfield", "Massachusetts", "01085", 42.1293, -72.7522, null]);
      expect(pick(ashburn!, ["country", ...fields])).toEqual([
        "US",
        "Ashburn",
        "Virginia",
        "20149",
        39.0469,
        -77.4903,
        null,
      ]);
      expect(pick(countryOnly!, fields)).toEqual([null, null, null, null, null, null]);
      expect(pick(anycast!, fields)).toEqual([null, null, null, null, null, null]);
      // A null city says why: the city file places the network in its country only; an anycast resolver is placed
      // nowhere; a city given needs no reason.
      expect([westfield, ashburn, countryOnly, anycast].map((a) => a!.city_reason)).toEqual([
        null,
        null,
        "not_in_dataset",
        "anycast",
      ]);
      expect(westfield!.sources).toContainEqual({
        dataset: "ip-city",
        version: SAMPLE_VERSIONS["ip-city"],
        coverage: "full",
      });
    },
  );

  it(
    "shows no city in another country than the answer's: GeoLite2 puts 2a00:1450:4001::/48 in Frankfurt, ip-country " +
      "in IE",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const [google] = await answers(acct, ["2a00:1450:4001:800::200e"]);
      expect(pick(google!, ["country", "city", "region", "postal_code", "latitude", "longitude"])).toEqual([
        "IE",
        null,
        null,
        null,
        null,
        null,
      ]);
      expect(google!.city_reason).toBe("country_mismatch");
    },
  );
});

describe("hosting providers from their published ranges", () => {
  it("names the provider whose ranges hold the address, marks it hosting, and bills as before", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await batch(acct, ["52.94.236.250", "167.99.0.1", "104.16.0.1", "8.8.8.8", "9.9.9.9"]);
    const [aws, droplet, cloudflare, google, quad9] = body.data.results.map((r) => r.data);
    expect(pick(aws!, ["placed", "country", "hosting", "hosting_provider", "reason", "risk_score"])).toEqual([
      true,
      "US",
      true,
      "Amazon Web Services",
      "hosting",
      40,
    ]);
    expect(aws!.sources).toContainEqual({
      dataset: "hosting-aws",
      version: listSample("hosting-aws").version,
      coverage: "sample",
    });
    expect(pick(droplet!, ["placed", "hosting", "hosting_provider", "reason"])).toEqual([
      true,
      true,
      "DigitalOcean",
      "hosting",
    ]);
    // Not placed by the country sample: hosting all the same, and free as every unplaced answer.
    // Cloudflare's edge is anycast: placed nowhere, hosting all the same, and free as every unplaced answer.
    expect(pick(cloudflare!, ["placed", "anycast", "hosting", "hosting_provider", "reason"])).toEqual([
      false,
      true,
      true,
      "Cloudflare",
      "anycast",
    ]);
    // Google's AS is on the curated hosting list, but 8.8.8.8 is in no cloud's published customer ranges.
    expect(pick(google!, ["hosting", "hosting_provider", "anycast"])).toEqual([true, null, true]);
    expect(pick(quad9!, ["hosting", "hosting_provider", "reason", "country"])).toEqual([false, null, "anycast", null]);
    expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 0, 0, 0, 0]);
    // Two placing lookups (AWS, DigitalOcean) of the credit's five: the anycast resolvers place nothing.
    expect(body.meta).toMatchObject({ processed: 5, credits_used: 1, ip_lookups_prepaid: 3 });
  });
});

describe("tor and vpn from lists", () => {
  it("marks a listed VPN range true and leaves the rest null while the VPN list only partly covers VPNs", async () => {
    const acct = await createAccount({ pack: 10 });
    const [vpn, other] = await answers(acct, ["146.70.1.1", "8.8.8.8"]);
    // 146.70.0.0/16 is in no row of the country sample: unplaced as well.
    expect(pick(vpn!, ["vpn", "anonymous", "reason", "risk_components"])).toEqual([
      true,
      true,
      "vpn",
      { vpn: 60, unplaced: 20 },
    ]);
    expect(pick(other!, ["vpn", "tor", "proxy", "anonymous"])).toEqual([null, null, null, null]);
    // Each null says why: only samples were asked, and none holds the address (a sample's word, not the list's).
    expect(pick(other!, ["vpn_reason", "tor_reason", "proxy_reason"])).toEqual([
      "sample_data",
      "sample_data",
      "sample_data",
    ]);
    expect(other!.sources).toContainEqual({
      dataset: "vpn-x4bnet",
      version: listSample("vpn-x4bnet").version,
      coverage: "sample",
      decided: false,
    });
    // The VPN sample that holds 146.70.1.1 decided `vpn` (its word, a sample's): not marked undecided.
    expect(vpn!.sources).toContainEqual({
      dataset: "vpn-x4bnet",
      version: listSample("vpn-x4bnet").version,
      coverage: "sample",
    });
    expect(vpn!.vpn_reason).toBe("sample_data");
  });

  it("answers vpn false only with a full list installed, and anonymous false once a signal was checked", async () => {
    const acct = await createAccount({ pack: 10 });
    const sample = listSample("vpn-x4bnet");
    await installIpDataset("vpn-x4bnet", sample.rows, "2026-11-23", { kind: "full" });
    try {
      const [vpn, other] = await answers(acct, ["146.70.1.1", "8.8.8.8"]);
      expect(pick(vpn!, ["vpn", "anonymous"])).toEqual([true, true]);
      expect(pick(other!, ["vpn", "tor", "anonymous"])).toEqual([false, null, false]);
    } finally {
      await installIpDataset("vpn-x4bnet", sample.rows, sample.version);
    }
  });

  it(
    "answers proxy true for an address an open-proxy list holds (anonymous, 60 risk points), null " + "elsewhere",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const [proxy, other] = await answers(acct, ["103.152.112.20", "8.8.8.8"]);
      expect(pick(proxy!, ["proxy", "anonymous"])).toEqual([true, true]);
      expect(proxy!.risk_components).toMatchObject({ proxy: 60 });
      expect(proxy!.sources).toContainEqual({
        dataset: "proxy-firehol",
        version: listSample("proxy-firehol").version,
        coverage: "sample",
      });
      // The list is partial (not every proxy): an address it does not hold is unknown, not false.
      expect(pick(other!, ["proxy"])).toEqual([null]);
    },
  );

  it("answers proxy false only with a full open-proxy list installed", async () => {
    const acct = await createAccount({ pack: 10 });
    const sample = listSample("proxy-firehol");
    await installIpDataset("proxy-firehol", sample.rows, "2026-11-23", { kind: "full" });
    try {
      const [other] = await answers(acct, ["8.8.8.8"]);
      expect(pick(other!, ["proxy", "anonymous"])).toEqual([false, false]);
    } finally {
      await installIpDataset("proxy-firehol", sample.rows, sample.version);
    }
  });

  it("lists every IP dataset's coverage in /status/data", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; version: string; coverage?: { kind: string } }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    const byName = new Map(body.data.datasets.map((d) => [d.name, d]));
    // The range tables stand in for the full package tables (test/ip-samples.ts), the lists are samples.
    for (const name of ["ip-country", "ip-asn", "ip-city"]) expect(byName.get(name)?.coverage?.kind, name).toBe("full");
    for (const name of [
      "ip-tor-exits",
      "hosting-aws",
      "hosting-google-cloud",
      "hosting-azure",
      "hosting-oracle",
      "hosting-digitalocean",
      "hosting-cloudflare",
      "vpn-x4bnet",
      "proxy-firehol",
    ]) {
      expect(byName.get(name)?.coverage?.kind, name).toBe("sample");
    }
    expect(byName.get("hosting-aws")!.version).toBe("2026-11-20-sample");
  });
});

describe("a Tor exit list that is a sample (issue 47)", () => {
  it("answers a Tor range address outside the 3-row sample tor null, saying the list is a sample", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await call<IpResult>(
      "/api/v1/ip",
      json({ ip: "185.220.101.200" }, bearer(acct.key).headers as Record<string, string>),
    );
    // Placed by the country file (1 credit opens a block of five), but the exit list can say nothing of it.
    expect(pick(body.data, ["country", "tor", "tor_reason", "anonymous", "risk_score"])).toEqual([
      "DE",
      null,
      "sample_data",
      null,
      0,
    ]);
    expect(body.data.sources).toContainEqual({
      dataset: "ip-tor-exits",
      version: SAMPLE_VERSIONS["ip-tor-exits"],
      coverage: "sample",
      decided: false,
    });
    expect(body.meta).toMatchObject({ credits_used: 1 });
  });

  it("answers a listed exit tor true, decided by the sample, and says so", async () => {
    const acct = await createAccount({ pack: 10 });
    const [exit] = await answers(acct, ["185.220.101.1"]);
    expect(pick(exit!, ["tor", "tor_reason", "reason"])).toEqual([true, "sample_data", "tor_exit"]);
    expect(exit!.sources).toContainEqual({
      dataset: "ip-tor-exits",
      version: SAMPLE_VERSIONS["ip-tor-exits"],
      coverage: "sample",
    });
  });
});
