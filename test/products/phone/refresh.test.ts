/**
 * The phone prefix tables on the scheduled refresh (docs/phone.md, "Refresh"; src/products/phone/refresh.ts): Google
 * libphonenumber's resource files out of its repository zip and the receive-SMS `number-list.json`, served by the
 * publishers' stand-in (test/fixtures/publishers.ts), imported as a new version beside the one answers read and
 * switched to in one step after the sanity bounds; a refused or failed refresh is visible and changes no answer.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createAccount, json } from "../../helpers";
import { installPhoneSamples, sampleValue, sampleVersion, ukMobile } from "../../phone-samples";
import { holdPublishers } from "../../publishers-lease";

holdPublishers();

interface Refresh {
  status: string;
  phase: string | null;
  generation: number | null;
  error: string | null;
  stale: boolean;
}
interface StatusRow {
  name: string;
  version: string | null;
  records: number | null;
  coverage: { kind: string };
  refresh: Refresh | null;
}

const control = (body: Record<string, unknown>) =>
  fetch(`${env.PUBLISHERS_URL}/control`, { method: "POST", body: JSON.stringify(body) });

async function refreshNow(name: string): Promise<Refresh> {
  const started = await admin<{ started: boolean }>("POST", `/dataset-refresh/${name}`);
  expect(started.started).toBe(true);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const view = (
      await admin<{ datasets: { name: string; refresh: Refresh }[] }>("GET", "/dataset-refresh")
    ).datasets.find((d) => d.name === name)!;
    if (view.refresh.status !== "running" && view.refresh.phase === null) return view.refresh;
    if (Date.now() > deadline) throw new Error(`refresh of ${name} did not settle: ${JSON.stringify(view.refresh)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function statusRow(name: string): Promise<StatusRow> {
  const acct = await createAccount({ pack: 1 });
  const rows = (
    await call<{ datasets: StatusRow[] }>("/api/v1/status/data", { headers: { Authorization: `Bearer ${acct.key}` } })
  ).body.data.datasets;
  return rows.find((d) => d.name === name)!;
}

async function lookup(phone: string) {
  const acct = await createAccount({ pack: 5 });
  const res = await call<Record<string, any>>(
    "/api/v1/phone",
    json({ phone }, { Authorization: `Bearer ${acct.key}` }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const rowCount = async (dataset: string, version: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM phone_prefixes WHERE dataset = ? AND version = ?")
    .bind(dataset, version)
    .first<{ n: number }>())!.n;

const REFRESHED = /^\d{4}-\d{2}-\d{2}-gen-1$/;

beforeAll(async () => {
  await installPhoneSamples();
  await control({ phoneCarrier: null, phoneRows: null, status: {} });
}, 60_000);

describe("phone prefix tables on the scheduled refresh", { timeout: 40_000 }, () => {
  it(
    "a new libphonenumber edition changes the carrier answered, " + "cites the refreshed version and sweeps the sample",
    async () => {
      const number = ukMobile();
      expect((await lookup(number)).carrier).toBe("Three");
      await control({ phoneCarrier: "Three UK Refreshed" });
      const refresh = await refreshNow("phone-carriers");
      expect(refresh).toMatchObject({ status: "ok", error: null, generation: 1, stale: false });
      const row = await statusRow("phone-carriers");
      expect(row.version).toMatch(REFRESHED);
      // 760 rows are short of a complete carrier file's floor: recorded as partial, and the refresh says why.
      expect(row).toMatchObject({
        records: 760,
        coverage: { kind: "partial" },
        refresh: { status: "ok", error: null, coverage_note: expect.stringMatching(/^760 rows, under the 20,000 /) },
      });
      const answer = await lookup(number);
      expect(answer.carrier).toBe("Three UK Refreshed");
      expect(answer.sources).toContainEqual({ dataset: "phone-carriers", version: row.version, coverage: "partial" });
      // The German carrier file of the archive is not read; the sample's rows are swept once answers moved.
      expect((await lookup("+41761234567")).carrier).toBe(sampleValue("phone-carriers", "41", "761234567"));
      expect(await rowCount("phone-carriers", sampleVersion("phone-carriers"))).toBe(0);
      expect(await rowCount("phone-carriers", "gen-1")).toBe(760);
    },
  );

  it("a file under the sanity bounds of the active version is refused; answers keep it", async () => {
    await control({ phoneCarrier: "Cut Short", phoneRows: 50 });
    const refresh = await refreshNow("phone-carriers");
    expect(refresh).toMatchObject({ status: "failed", generation: 1 });
    expect(refresh.error).toBe(
      "sanity check failed: 100 rows against 760 in generation 1 (accepted: 0.9x to 1.2x); answers keep generation 1",
    );
    expect((await statusRow("phone-carriers")).refresh).toMatchObject({ status: "failed", error: refresh.error });
    expect((await lookup(ukMobile())).carrier).toBe("Three UK Refreshed");
    expect(await rowCount("phone-carriers", "gen-1")).toBe(760);
    await control({ phoneCarrier: "Three UK Refreshed", phoneRows: null });
  });

  it("a failed fetch is visible in /status/data and the admin view; answers keep the last good version", async () => {
    const before = await statusRow("phone-geocodes");
    await control({ status: { "/libphonenumber/archive/refs/heads/master.zip": 503 } });
    try {
      const refresh = await refreshNow("phone-geocodes");
      expect(refresh.status).toBe("failed");
      expect(refresh.error).toMatch(/^fetching http:\/\/127\.0\.0\.1:\d+\/libphonenumber\/.*: HTTP 503$/);
      const row = await statusRow("phone-geocodes");
      expect(row).toMatchObject({ version: before.version, records: before.records, refresh: { status: "failed" } });
      expect(row.refresh!.error).toBe(refresh.error);
      const answer = await lookup("+442071234567");
      expect(answer.location).toBe(sampleValue("phone-geocodes", "44", "2071234567"));
      expect(answer.sources).toContainEqual({
        dataset: "phone-geocodes",
        version: sampleVersion("phone-geocodes"),
        coverage: "sample",
      });
    } finally {
      await control({ status: {} });
    }
  });

  it("timezones (map_data.txt) and the disposable list refresh from their own formats", async () => {
    expect(await refreshNow("phone-timezones")).toMatchObject({ status: "ok", error: null });
    expect(await refreshNow("phone-disposable")).toMatchObject({ status: "ok", error: null });
    const number = ukMobile();
    const answer = await lookup(number);
    expect(answer.timezones).toEqual(sampleValue("phone-timezones", "44", number.slice(3))!.split("&"));
    for (const name of ["phone-timezones", "phone-disposable"]) {
      const row = await statusRow(name);
      expect(row.version).toMatch(REFRESHED);
      expect(answer.sources).toContainEqual({ dataset: name, version: row.version, coverage: "partial" });
    }
    expect((await statusRow("phone-disposable")).records).toBe(59);
  });
});
