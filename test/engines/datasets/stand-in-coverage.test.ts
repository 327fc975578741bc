/**
 * What `npm run dev -- --offline` does with one call of the cron (docs/operations.md, "Dataset refresh"): every
 * publisher's stand-in file (test/fixtures/publishers.ts, saying what it is with `X-Stand-In` as the offline stack
 * runs it) is refreshed into its dataset as a sample: recorded `sample`, named so in the refresh status, never a
 * confident negative, and every answer a row of it decides says `sample_data`.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { generatedPostcode } from "../../fixtures/generated-postcodes";
import { makeLei } from "../../entity-samples";
import { admin, call, createAccount, json } from "../../helpers";
import { holdPublishers } from "../../publishers-lease";

holdPublishers();

interface Refresh {
  status: string;
  phase: string | null;
  coverage_note: string | null;
}
interface StatusRow {
  name: string;
  records: number | null;
  coverage: { kind: string; note?: string };
  refresh: Refresh | null;
}

const control = (body: Record<string, unknown>) =>
  fetch(`${env.PUBLISHERS_URL}/control`, { method: "POST", body: JSON.stringify(body) });

async function settled(timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { datasets } = await admin<{ datasets: { name: string; refresh: Refresh }[] }>("GET", "/dataset-refresh");
    if (datasets.every((d) => d.refresh.status !== "running" && d.refresh.phase === null)) return;
    if (Date.now() - started > timeoutMs) throw new Error(`refresh did not settle: ${JSON.stringify(datasets)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let statuses: Map<string, StatusRow>;

beforeAll(async () => {
  await control({ tor: 150, registers: 120, address: 120, status: {}, corruptZip: false, standIn: "offline-stand-in" });
  try {
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: "1-59/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    await settled(90_000);
  } finally {
    // Every file is in: the stand-in speaks as a real publisher again before the lease passes to another file.
    await control({ standIn: null });
  }
  const acct = await createAccount({ pack: 1 });
  const { body } = await call<{ datasets: StatusRow[] }>("/api/v1/status/data", {
    headers: { Authorization: `Bearer ${acct.key}` },
  });
  statuses = new Map(body.data.datasets.map((d) => [d.name, d]));
}, 120_000);

const post = async <T = Record<string, any>>(path: string, body: unknown) => {
  const acct = await createAccount({ pack: 5 });
  return call<T>(path, json(body, { Authorization: `Bearer ${acct.key}` }));
};

describe("the offline stand-ins through the scheduled refresh", { timeout: 30_000 }, () => {
  it("installs every stand-in file as a sample, the status naming it", () => {
    const refreshed = [...statuses.values()].filter((d) => d.refresh?.status === "ok" && d.records !== null);
    // Tor, the range and provider lists, the registers, the address registers and the phone tables.
    expect(refreshed.map((d) => d.name).sort()).toEqual(
      [
        "fr-ban",
        "gleif-lei",
        "hosting-aws",
        "hosting-azure",
        "hosting-cloudflare",
        "hosting-digitalocean",
        "hosting-google-cloud",
        "hosting-oracle",
        "ip-country",
        "ip-tor-exits",
        "phone-carriers",
        "phone-disposable",
        "phone-geocodes",
        "phone-timezones",
        "proxy-firehol",
        "uk-companies-house",
        "uk-onspd",
        "uk-os-open-names",
        "vpn-x4bnet",
      ].sort(),
    );
    for (const d of refreshed) {
      expect(d.coverage.kind, d.name).toBe("sample");
      // Whatever the publisher's whole file would be (the VPN and proxy lists are never complete): a stand-in's rows.
      expect(d.refresh!.coverage_note, d.name).toMatch(/^Installed from a stand-in publisher \(offline-stand-in/);
      expect(d.coverage.note, d.name).toBe(d.refresh!.coverage_note);
    }
  });

  it("an LEI or company number a partial register lacks is not unknown_identifier: free, not installed", async () => {
    const lei = await post("/api/v1/entity", { identifier: makeLei("SMPL00ELSEWHERE000") });
    expect(lei.status).toBe(200);
    expect(lei.body.data).toMatchObject({ found: false, reason: "register_not_installed", checksum_valid: true });
    expect(lei.body.meta.credits_used).toBe(0);
    const company = await post("/api/v1/entity", { identifier: "09999999", type: "company_number", country: "GB" });
    expect(company.body.data).toMatchObject({ found: false, reason: "register_not_installed" });
    expect(company.body.meta.credits_used).toBe(0);
    // What the file holds still answers.
    const held = await post("/api/v1/entity", { identifier: "09800011", type: "company_number", country: "GB" });
    expect(held.body.data).toMatchObject({ found: true, name: "REFRESHED COMPANY 11 LIMITED", reason: "sample_data" });
    expect(held.body.data.sources).toEqual([
      expect.objectContaining({ dataset: "uk-companies-house", coverage: "sample" }),
    ]);
    expect(held.body.meta.credits_used).toBe(1);
    // The fixture row: found, billed as found, and said to be a sample's, not the register's word.
    const sample = await post("/api/v1/entity", { identifier: "09900002" });
    expect(sample.body.data).toMatchObject({ found: true, name: "SAMPLE HOLDINGS PLC", reason: "sample_data" });
    // The same in a batch: each result says so, and the batch bills what was found.
    const batch = await post<{ results: { data: Record<string, unknown>; meta: { credits_used: number } }[] }>(
      "/api/v1/entity/batch",
      { identifiers: ["09900002", { identifier: "09999999", type: "company_number", country: "GB" }] },
    );
    expect(batch.body.data.results.map((r) => [r.data.reason, r.meta.credits_used])).toEqual([
      ["sample_data", 1],
      ["register_not_installed", 0],
    ]);
  });

  it("a postcode the stand-in's ONSPD holds is verified with sample_data", async () => {
    const { body } = await post("/api/v1/address", {
      address: { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA" },
      country: "GB",
    });
    expect(body.data).toMatchObject({ verification: "verified", postcode_found: true, reason: "sample_data" });
    expect(body.data.sources).toContainEqual(expect.objectContaining({ dataset: "uk-onspd", coverage: "sample" }));
    expect(body.meta.credits_used).toBe(1);
  });

  it("a postcode a sample ONSPD lacks is not covered (risk 30, free), never unknown_postcode at 70", async () => {
    const { status, body } = await post("/api/v1/address", {
      address: { line1: "1 Any Street", locality: "Manchester", postcode: generatedPostcode(500) },
      country: "GB",
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      verification: "format_only",
      reason: "not_covered",
      postcode_found: null,
      risk_score: 30,
    });
    expect(body.meta.credits_used).toBe(0);
  });

  it("an address a sample Tor list lacks is tor null, not a confident false; a listed exit is true", async () => {
    const placed = await post("/api/v1/ip", { ip: "90.0.3.9" });
    // No city file here (its URL var is off offline): the null city says so.
    expect(placed.body.data).toMatchObject({
      country: "FR",
      tor: null,
      anonymous: null,
      city: null,
      city_reason: "dataset_not_installed",
    });
    const exit = await post("/api/v1/ip", { ip: "185.220.100.7" });
    expect(exit.body.data).toMatchObject({ tor: true, reason: "tor_exit" });
    // In the Tor project's range but not on the partial list: nothing said either way.
    const near = await post("/api/v1/ip", { ip: "185.220.101.200" });
    expect(near.body.data).toMatchObject({ country: "DE", tor: null });
    // The partial country file does not hold it: no country guessed (not `unplaced`), free.
    const unplaced = await post("/api/v1/ip", { ip: "44.10.20.30" });
    expect(unplaced.body.data).toMatchObject({ placed: false, country: null, tor: null, reason: "not_covered" });
    expect(unplaced.body.meta.credits_used).toBe(0);
  });

  it("a number a sample disposable list lacks is disposable null, not false", async () => {
    const { body } = await post("/api/v1/phone", { phone: "+447911123456" });
    // The stand-in's prefix tables gave its carrier or place: a sample decided those fields, and the answer says so.
    expect(body.data).toMatchObject({ valid: true, disposable: null, reason: "sample_data" });
    expect(body.data.sources).toContainEqual(
      expect.objectContaining({ dataset: "phone-carriers", coverage: "sample" }),
    );
  });
});
