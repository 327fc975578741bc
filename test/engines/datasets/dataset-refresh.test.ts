/**
 * The scheduled dataset refresh (docs/operations.md, "Dataset refresh"): the cron starts every due dataset, each run
 * fetches the publisher's file from the stand-in (test/fixtures/publishers.ts: the real formats, gzip and zip
 * included), imports it in queue steps into a new generation and switches answers to it only after its sanity check;
 * failures are shown in `/status/data` and `/admin/v1/dataset-refresh` while answers keep the last good generation.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runRefreshStep, startRefresh } from "../../../src/engines/datasets/refresh";
import { refreshableNamed } from "../../../src/products/refreshable";
import { candidateUrls } from "../../../src/engines/datasets/stage";
import type { EntityResult } from "../../../src/products/entity/result";
import type { IpResult } from "../../../src/products/ip/result";
import worker from "../../../src/index";
import { formatIp, fromRangeKey } from "../../../src/platform/ip-address";
import { makeLei } from "../../entity-samples";
import { listSample } from "../../ip-samples";
import { admin, call, createAccount, json, type TestAccount } from "../../helpers";
import { holdPublishers } from "../../publishers-lease";

holdPublishers();

interface View {
  name: string;
  url: string;
  refresh: {
    status: string;
    phase: string | null;
    last_attempt_at: string | null;
    last_success_at: string | null;
    generation: number | null;
    error: string | null;
    stale: boolean;
    coverage_note: string | null;
  };
}
interface StatusRow {
  name: string;
  coverage: { kind: string; countries?: string[]; note?: string };
  version: string | null;
  records: number | null;
  refresh: View["refresh"] | null;
}

const control = async (body: Record<string, unknown>) =>
  (await (await fetch(`${env.PUBLISHERS_URL}/control`, { method: "POST", body: JSON.stringify(body) })).json()) as {
    served: Record<string, number>;
  };

const views = async () => (await admin<{ datasets: View[] }>("GET", "/dataset-refresh")).datasets;
const view = async (name: string) => (await views()).find((v) => v.name === name)!;

/** Waits until no run of `names` is in progress (the queue carries each run step by step). */
async function settled(names: string[], timeoutMs = 20_000): Promise<Map<string, View>> {
  const started = Date.now();
  for (;;) {
    const all = await views();
    const wanted = all.filter((v) => names.includes(v.name));
    if (wanted.every((v) => v.refresh.status !== "running" && v.refresh.phase === null))
      return new Map(wanted.map((v) => [v.name, v]));
    if (Date.now() - started > timeoutMs)
      throw new Error(`refresh did not settle: ${JSON.stringify(wanted.map((v) => [v.name, v.refresh]))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function refreshNow(name: string): Promise<View> {
  const started = await admin<{ started: boolean; run: string }>("POST", `/dataset-refresh/${name}`);
  expect(started.started).toBe(true);
  return (await settled([name])).get(name)!;
}

const statusData = async (key: string) =>
  (await call<{ datasets: StatusRow[] }>("/api/v1/status/data", { headers: { Authorization: `Bearer ${key}` } })).body
    .data.datasets;
const ipLookup = (acct: TestAccount, ip: string) =>
  call<IpResult>("/api/v1/ip", json({ ip }, { Authorization: `Bearer ${acct.key}` }));
const entityLookup = (acct: TestAccount, identifier: string) =>
  call<EntityResult>("/api/v1/entity", json({ identifier }, { Authorization: `Bearer ${acct.key}` }));
const rowCount = async (sql: string, ...binds: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n;

const LISTS = [
  "hosting-aws",
  "hosting-google-cloud",
  "hosting-azure",
  "hosting-oracle",
  "hosting-digitalocean",
  "hosting-cloudflare",
  "vpn-x4bnet",
  "proxy-firehol",
];
const REFRESHED = [
  "ip-tor-exits",
  "ip-country",
  "gleif-lei",
  "uk-companies-house",
  "uk-onspd",
  "uk-os-open-names",
  "fr-ban",
  ...LISTS,
];
let acct: TestAccount;

beforeAll(async () => {
  await control({ tor: 150, registers: 120, status: {}, corruptZip: false });
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ cron: "1-59/15 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
  await settled(REFRESHED, 60_000);
}, 90_000);

// A key admits bursts of 5 requests a second (src/limits/limiter.ts). One account shared by the whole file spent 6 in
// well under a second across the first three tests (a status read in each of the first two, then four lookups), so the
// fourth lookup answered 429 whenever those tests ran faster than the bucket refilled: the intermittent failure. Each
// test gets its own key; none makes more than 5 calls with it.
beforeEach(async () => {
  acct = await createAccount({ pack: 100 });
});

describe("scheduled refresh from the publishers", { timeout: 30_000 }, () => {
  it("the cron imports every due dataset and /status/data shows its generation, version and freshness", async () => {
    const byName = new Map((await statusData(acct.key)).map((d) => [d.name, d]));
    expect(byName.get("ip-tor-exits")).toMatchObject({
      version: "2026-11-25",
      records: 150,
      refresh: { status: "ok", error: null, stale: false, phase: null },
    });
    expect(byName.get("ip-country")!.records).toBeGreaterThan(1_200);
    // GLEIF: the date of the zip member behind the `latest.csv` redirect; Companies House: the month in the file name.
    // The GLEIF sample holds 36 records (one spans two lines), Companies House 36 with a company number; the stand-in
    // adds 120 to each.
    expect(byName.get("gleif-lei")).toMatchObject({
      version: "2026-11-25",
      records: 120 + 36,
      refresh: { status: "ok", stale: false },
    });
    expect(byName.get("uk-companies-house")!.version).toMatch(/^\d{4}-\d{2}-01$/);
    expect(byName.get("uk-companies-house")!.records).toBe(120 + 36);
    // Switched off by its URL var: never attempted, and flagged stale since nothing fresh backs it.
    expect(byName.get("ip-asn")).toMatchObject({
      version: null,
      records: null,
      refresh: { status: "never", last_attempt_at: null, generation: null, stale: true },
    });
    // The GLEIF delta waits for the golden copy it applies to: not started in the same pass.
    expect(byName.get("gleif-lei-delta")).toMatchObject({ version: null, refresh: { status: "never" } });
    // Datasets not refreshed on schedule say so.
    expect(byName.get("rdap-bootstrap")!.refresh).toBeNull();
  });

  it(
    "refreshes the publishers' lists through their importers and records each dataset's coverage with " + "it",
    async () => {
      const byName = new Map((await statusData(acct.key)).map((d) => [d.name, d]));
      for (const name of LISTS) {
        const sample = listSample(name);
        expect(byName.get(name), name).toMatchObject({
          // The stand-in serves half of Cloudflare's list (the whole of it is a complete file).
          records: name === "hosting-cloudflare" ? 12 : sample.rows.length,
          refresh: { status: "ok", error: null },
        });
        // A stand-in's file is short of every floor: what the lists declare `full` is recorded as `partial`.
        expect(byName.get(name)!.coverage.kind, name).toBe("partial");
      }
      // Activation writes the coverage the file earned, and the refresh says why it is not the declared one.
      expect(byName.get("ip-tor-exits")!.coverage).toEqual({
        kind: "partial",
        note:
          "150 rows, under the 500 of a complete file (Tor Metrics: about 1,000 to 2,000 exit relays a day): " +
          "recorded as partial",
      });
      expect(byName.get("ip-tor-exits")!.refresh!.coverage_note).toBe(byName.get("ip-tor-exits")!.coverage.note);
      expect(byName.get("ip-country")!.coverage.kind).toBe("partial");
      expect(byName.get("gleif-lei")!.coverage).toMatchObject({ kind: "partial" });
      expect(byName.get("gleif-lei")!.refresh!.coverage_note).toMatch(/^156 rows, under the 2,000,000 of a complete/);
      expect(byName.get("uk-companies-house")!.coverage).toMatchObject({ kind: "partial", countries: ["GB"] });
      // The VPN list is never complete, whatever its size: nothing to explain.
      expect(byName.get("vpn-x4bnet")!.refresh!.coverage_note).toBeNull();
      const first = (name: string) => formatIp(fromRangeKey((listSample(name).rows[0] as string[])[0]!));
      // An account of its own: the shared one's per-second request budget belongs to the tests below.
      const own = await createAccount({ pack: 10 });
      const aws = await ipLookup(own, first("hosting-aws"));
      expect(aws.body.data).toMatchObject({ hosting: true, hosting_provider: "Amazon Web Services" });
      const vpn = await ipLookup(own, first("vpn-x4bnet"));
      expect(vpn.body.data).toMatchObject({ vpn: true, anonymous: true });
    },
  );

  it("answers read the refreshed rows: a Tor exit, a country from the gzip file, an LEI from the zip", async () => {
    const tor = await ipLookup(acct, "185.220.100.7");
    expect(tor.status).toBe(200);
    expect(tor.body.data.tor).toBe(true);
    const french = await ipLookup(acct, "90.0.3.9");
    expect(french.status, JSON.stringify(french.body)).toBe(200);
    expect(french.body.data.country).toBe("FR");
    const lei = await entityLookup(acct, makeLei("SMPL00REFRESH00007"));
    expect(lei.status, JSON.stringify(lei.body)).toBe(200);
    expect(lei.body.data).toMatchObject({ found: true, name: "REFRESHED ENTITY 7 LIMITED", status: "active" });
    const company = await call<EntityResult>(
      "/api/v1/entity",
      json({ identifier: "09800011", type: "company_number", country: "GB" }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(company.status, JSON.stringify(company.body)).toBe(200);
    expect(company.body.data).toMatchObject({ found: true, name: "REFRESHED COMPANY 11 LIMITED" });
  });

  it("an unchanged file (ETag, 304) is not imported again and counts as a success", async () => {
    const before = await view("ip-tor-exits");
    const { served } = await control({});
    const run = await startRefresh(env, refreshableNamed("ip-tor-exits")!, Date.now());
    expect(run).not.toBeNull();
    const after = (await settled(["ip-tor-exits"])).get("ip-tor-exits")!;
    expect(after.refresh).toMatchObject({ status: "ok", generation: before.refresh.generation });
    expect(after.refresh.last_success_at! >= before.refresh.last_success_at!).toBe(true);
    expect((await control({})).served["/tor/exit-addresses"]).toBe(served["/tor/exit-addresses"]! + 1);
  });

  it("a new edition becomes a new generation in one step and the old one is swept", async () => {
    const before = await view("ip-tor-exits");
    await control({ tor: 170 });
    const after = await refreshNow("ip-tor-exits");
    expect(after.refresh).toMatchObject({ status: "ok", error: null, generation: before.refresh.generation! + 1 });
    expect(await rowCount("SELECT COUNT(*) AS n FROM ip_tor_exits")).toBe(170);
    expect((await statusData(acct.key)).find((d) => d.name === "ip-tor-exits")!.records).toBe(170);
    expect((await ipLookup(acct, "185.220.100.165")).body.data.tor).toBe(true);
  });

  it(
    "a file outside the sanity bounds is refused: answers keep the last good generation, the error is " + "shown",
    async () => {
      const before = await view("ip-tor-exits");
      await control({ tor: 30 });
      const after = await refreshNow("ip-tor-exits");
      expect(after.refresh.status).toBe("failed");
      expect(after.refresh.error).toMatch(/^sanity check failed: 30 rows, fewer than the 100/);
      expect(after.refresh.generation).toBe(before.refresh.generation);
      expect(after.refresh.last_success_at).toBe(before.refresh.last_success_at);
      const row = (await statusData(acct.key)).find((d) => d.name === "ip-tor-exits")!;
      expect(row).toMatchObject({ records: 170, refresh: { status: "failed", stale: false } });
      expect((await ipLookup(acct, "185.220.100.165")).body.data.tor).toBe(true);

      await control({ tor: 400 });
      const tooMany = await refreshNow("ip-tor-exits");
      expect(tooMany.refresh.error).toBe(
        `sanity check failed: 400 rows against 170 in generation ${before.refresh.generation} (accepted: 0.5x to ` +
          `2x); ` +
          `answers keep generation ${before.refresh.generation}`,
      );
      // The refused generation's rows go with the next sweep; answers never saw them (and the list answers read is
      // partial: an address it lacks is not known either way).
      expect((await ipLookup(acct, "185.220.101.40")).body.data.tor).toBeNull();
    },
  );

  it("a publisher outage fails the run visibly and changes nothing", async () => {
    await control({ tor: 170, status: { "/tor/exit-addresses": 503 } });
    const after = await refreshNow("ip-tor-exits");
    expect(after.refresh).toMatchObject({
      status: "failed",
      error: `fetching ${env.PUBLISHERS_URL}/tor/exit-addresses: HTTP 503`,
    });
    expect(
      await rowCount(
        "SELECT COUNT(*) AS n FROM ip_tor_exits WHERE generation = (SELECT active FROM ip_datasets WHERE name = " +
          "'ip-tor-exits')",
      ),
    ).toBe(170);
    await control({ status: {} });
  });

  it("a damaged zip fails the run; the register keeps answering from its last generation", async () => {
    const before = await view("gleif-lei");
    await control({ corruptZip: true });
    const after = await refreshNow("gleif-lei");
    expect(after.refresh.status).toBe("failed");
    expect(after.refresh.error).toMatch(/zip/);
    expect(after.refresh.generation).toBe(before.refresh.generation);
    expect((await entityLookup(acct, makeLei("SMPL00REFRESH00007"))).body.data).toMatchObject({ found: true });
    await control({ corruptZip: false });
    expect((await refreshNow("gleif-lei")).refresh).toMatchObject({
      status: "ok",
      generation: before.refresh.generation! + 1,
    });
    expect(await rowCount("SELECT COUNT(*) AS n FROM register_entities WHERE register = 'gleif-lei'")).toBe(120 + 36);
  });

  it(
    "a GLEIF delta file is applied onto the generation answers read, all at once, and moves the register's " +
      "version",
    async () => {
      await control({ delta: 4 });
      const full = await view("gleif-lei");
      const after = await refreshNow("gleif-lei-delta");
      expect(after.refresh).toMatchObject({ status: "ok", error: null });
      expect((await entityLookup(acct, makeLei("SMPL00REFRESH00002"))).body.data).toMatchObject({
        found: true,
        name: "RENAMED ENTITY 2 LIMITED",
      });
      expect((await entityLookup(acct, makeLei("SMPL00DELTANEW0003"))).body.data).toMatchObject({
        found: true,
        name: "NEW ENTITY 3 LIMITED",
      });
      const row = (await statusData(acct.key)).find((d) => d.name === "gleif-lei")!;
      expect(row).toMatchObject({
        version: "2026-11-26",
        records: 120 + 36 + 4,
        refresh: { generation: full.refresh.generation },
      });
      // The delta's own rows are swept once applied: only the generation answers read is left.
      expect(await rowCount("SELECT COUNT(*) AS n FROM register_entities WHERE register = 'gleif-lei'")).toBe(
        120 + 36 + 4,
      );

      // A delta older than what the register holds is not applied: its records would undo later ones.
      await control({ delta: 6, deltaTime: "20261124-1600" });
      expect((await refreshNow("gleif-lei-delta")).refresh.status).toBe("ok");
      expect((await entityLookup(acct, makeLei("SMPL00DELTANEW0005"))).body.data).toMatchObject({ found: false });
      expect((await statusData(acct.key)).find((d) => d.name === "gleif-lei")).toMatchObject({
        version: "2026-11-26",
        records: 120 + 36 + 4,
      });
      await control({ delta: 0, deltaTime: "20261126-0000" });
    },
  );

  it("duplicate deliveries of a run's steps write each row once (the cursor moves once per step)", async () => {
    await control({ tor: 180 });
    const dataset = refreshableNamed("ip-tor-exits")!;
    const run = await startRefresh(env, dataset, Date.now(), true);
    // The same messages again, as a queue redelivering them would.
    for (let i = 0; i < 5; i++) await env.JOBS.send({ type: "dataset_refresh", name: "ip-tor-exits", run: run! });
    const after = (await settled(["ip-tor-exits"])).get("ip-tor-exits")!;
    expect(after.refresh).toMatchObject({ status: "ok", error: null });
    expect((await statusData(acct.key)).find((d) => d.name === "ip-tor-exits")!.records).toBe(180);
    expect(await rowCount("SELECT COUNT(*) AS n FROM ip_tor_exits")).toBe(180);
  });

  it("a refresh already running is not started twice; an unknown dataset is 404", async () => {
    await control({ tor: 175 });
    const first = await admin<{ started: boolean; run: string }>("POST", "/dataset-refresh/ip-tor-exits");
    const second = await admin<{ started: boolean; run: string | null }>("POST", "/dataset-refresh/ip-tor-exits");
    expect(first.started).toBe(true);
    expect(second).toEqual({ name: "ip-tor-exits", started: false, run: null });
    await settled(["ip-tor-exits"]);
    const missing = await call("/admin/v1/dataset-refresh/nope", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
  });

  it(
    "an import spanning several chunks resumes at its cursor after a step dies, and writes each row " + "once",
    async () => {
      // About 9 MB: staged in two multipart parts, imported in nine 1 MiB chunks.
      await control({ tor: 60_000 });
      const real = refreshableNamed("ip-tor-exits")!;
      let reads = 0;
      let crash = true;
      // Not in the registry, so the queue drops its messages and this test drives every step itself.
      const dataset = {
        ...real,
        name: "refresh-test",
        sanity: { minRecords: 1, minRatio: 0, maxRatio: 1_000 },
        reader: {
          ...real.reader,
          read(records: string[][], state: Record<string, unknown>) {
            if (++reads === 2 && crash) throw new Error("the Worker died here");
            return real.reader.read(records, state);
          },
        },
      };
      const run = await startRefresh(env, dataset, Date.now(), true);
      await runRefreshStep(env, dataset, run!); // fetch: the list staged in R2
      await expect(runRefreshStep(env, dataset, run!)).rejects.toThrow("the Worker died here");
      const state = await env.DB.prepare(
        "SELECT phase, cursor FROM dataset_refresh WHERE name = 'refresh-test'",
      ).first<{
        phase: string;
        cursor: string;
      }>();
      const cursor = JSON.parse(state!.cursor) as { file: number; offset: number; records: number };
      expect(state!.phase).toBe("import");
      expect(cursor.offset).toBeGreaterThan(1_000_000);
      expect(cursor.records).toBeGreaterThan(5_000);
      expect(cursor.records).toBeLessThan(60_000);
      crash = false;
      await runRefreshStep(env, dataset, run!); // resumes at the cursor, checks, switches
      await runRefreshStep(env, dataset, run!); // sweeps
      const done = await env.DB.prepare(
        "SELECT run, status, last_records FROM dataset_refresh WHERE name = 'refresh-test'",
      ).first();
      expect(done).toEqual({ run: null, status: "ok", last_records: 60_000 });
      expect(await rowCount("SELECT COUNT(*) AS n FROM ip_tor_exits")).toBe(60_000);
      expect((await env.DATASETS.list({ prefix: `refresh/refresh-test/${run}/` })).objects).toEqual([]);
    },
  );

  it("a generation that reaches its floor earns full coverage; a later short one is partial again", async () => {
    await control({ tor: 150 });
    const real = refreshableNamed("ip-tor-exits")!;
    // The Tor list's table and coverage with a floor of 100: 150 exits now reach it. Not in the registry, so the queue
    // drops its messages and this test drives every step itself.
    const dataset = {
      ...real,
      name: "floor-test",
      sanity: { minRecords: 1, minRatio: 0, maxRatio: 1_000 },
      fullFloor: { records: 100, basis: "a test floor" },
    };
    const run = await startRefresh(env, dataset, Date.now(), true);
    for (let step = 0; step < 4; step++) await runRefreshStep(env, dataset, run!);
    const earned = (await statusData(acct.key)).find((d) => d.name === "ip-tor-exits")!;
    expect(earned).toMatchObject({ records: 150, coverage: { kind: "full", note: real.coverage.note } });
    // The complete list is the one that may say no.
    expect((await ipLookup(acct, "185.220.101.40")).body.data).toMatchObject({ tor: false, anonymous: false });
    const after = await refreshNow("ip-tor-exits");
    expect(after.refresh).toMatchObject({
      status: "ok",
      coverage_note: expect.stringMatching(/^150 rows, under the 500/),
    });
    expect((await statusData(acct.key)).find((d) => d.name === "ip-tor-exits")!.coverage.kind).toBe("partial");
    expect((await ipLookup(acct, "185.220.101.40")).body.data.tor).toBeNull();
  });

  it("a monthly file named by its date falls back to last month's until this month's is published", () => {
    expect(candidateUrls("https://x/BasicCompanyDataAsOneFile-{month}.zip", Date.UTC(2026, 0, 3))).toEqual([
      "https://x/BasicCompanyDataAsOneFile-2026-01-01.zip",
      "https://x/BasicCompanyDataAsOneFile-2025-12-01.zip",
    ]);
    expect(candidateUrls("https://x/latest.csv", 0)).toEqual(["https://x/latest.csv"]);
  });
});
