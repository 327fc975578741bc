/**
 * Coverage of the IP datasets (docs/ip.md, "Coverage"): an address the installed country dataset does not place is
 * `unplaced` only when that dataset is the complete published file; from a sample or part of it, `country` stays null
 * with `reason: "not_covered"`, no risk points and free. `tor` is false only against the complete exit list: an address
 * a sample does not list is `tor: null`. `vpn` and `proxy` stay null (no list covers them).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Coverage } from "../../../src/db/coverage";
import type { IpResult } from "../../../src/products/ip/result";
import { bearer, call, createAccount, json } from "../../helpers";
import { installIpDataset, sampleRows, SAMPLE_VERSIONS, torRows } from "../../ip-samples";

const SAMPLE: Coverage = {
  kind: "sample",
  note: "Synthetic sample rows shipped with the code, not the publisher's file.",
};

/** A public address neither sample holds. */
const OUTSIDE = "44.10.20.30";
/** An address the Tor sample lists. */
const TOR_LISTED = "185.220.101.1";

const lookup = async (ip: string) => {
  const acct = await createAccount({ pack: 5 });
  const res = await call<IpResult>("/api/v1/ip", json({ ip }, { Authorization: `Bearer ${acct.key}` }));
  return { ...res, acct };
};

const install = async (coverage: Coverage) => {
  await installIpDataset(
    "ip-country",
    sampleRows("ip-country"),
    coverage.kind === "sample" ? SAMPLE_VERSIONS["ip-country"] : "2026-11-01",
    coverage,
  );
  await installIpDataset(
    "ip-asn",
    sampleRows("ip-asn"),
    coverage.kind === "sample" ? SAMPLE_VERSIONS["ip-asn"] : "2026-11-01",
    coverage,
  );
  await installIpDataset(
    "ip-tor-exits",
    torRows(),
    coverage.kind === "sample" ? SAMPLE_VERSIONS["ip-tor-exits"] : "2026-11-01",
    coverage,
  );
};

describe("IP datasets installed as samples", () => {
  beforeAll(() => install(SAMPLE));

  it("/status/data shows their coverage", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; coverage: Coverage }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    for (const name of ["ip-country", "ip-asn", "ip-tor-exits"])
      expect(body.data.datasets.find((d) => d.name === name)!.coverage, name).toEqual(SAMPLE);
  });

  it("an address outside the sample: country null, reason not_covered, tor null, no risk, free", async () => {
    const { status, body } = await lookup(OUTSIDE);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      valid: true,
      placed: false,
      country: null,
      country_name: null,
      tor: null,
      vpn: null,
      proxy: null,
      anonymous: null,
      reason: "not_covered",
      risk_score: 0,
      risk_components: {},
      risk_level: "low",
    });
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
  });

  it("an address the samples hold is placed, and one the Tor sample lists is a Tor exit", async () => {
    expect((await lookup("8.8.0.1")).body.data).toMatchObject({
      placed: true,
      country: "US",
      tor: null,
      anonymous: null,
    });
    expect((await lookup(TOR_LISTED)).body.data).toMatchObject({ tor: true, anonymous: true, reason: "tor_exit" });
  });
});

describe("IP datasets installed as the complete published files", () => {
  beforeAll(() => install({ kind: "full" }));

  it(
    "an address the country file does not place is unplaced (20 points), and off the exit list tor is " + "false",
    async () => {
      const { body } = await lookup(OUTSIDE);
      expect(body.data).toMatchObject({
        placed: false,
        country: null,
        tor: false,
        vpn: null,
        proxy: null,
        anonymous: false,
        reason: "unplaced",
        risk_components: { unplaced: 20 },
      });
      expect(body.meta.credits_used).toBe(0);
      expect((await lookup("8.8.0.1")).body.data).toMatchObject({
        placed: true,
        country: "US",
        tor: false,
        anonymous: false,
      });
    },
  );
});
