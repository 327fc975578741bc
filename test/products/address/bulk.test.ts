/**
 * Address bulk runs and monitors over HTTP (docs/address.md, "Bulk runs"): the job's address fields (`valid`,
 * `invalid`, `low`, `medium`, `high`, `country`, `deliverability`, `created_at`, `finished_at`), rows that take the
 * run's country, the CSV and its variants, and a monitor of addresses.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

type Job = Record<string, unknown> & { id: number; status: string };

async function settled(acct: TestAccount, jobId: number): Promise<Job> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { body } = await call<{ job: Job }>(`/api/v1/address/bulk/${jobId}`, bearer(await anotherKey(acct)));
    if (!["queued", "processing"].includes(body.data.job.status)) return body.data.job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`job ${jobId} did not settle`);
}

const ROWS = [
  "1 Main St, Springfield, IL 62701",
  { line1: "9355 Burton Way", locality: "Beverly Hills", region: "CA", postcode: "90210" },
  { address: "Via Roma 1, 00184 Roma", country: "IT" },
  "1 Main St, Chicago, IL 62701",
  "1 main st, springfield, il 62701",
];

describe("POST /address/bulk", () => {
  it(
    "runs with the run's country, counts valid/invalid and risk levels, and shows country and " + "deliverability",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const { status, body } = await call<{ job: Job }>(
        "/api/v1/address/bulk",
        json({ addresses: ROWS, country: "us", deliverability: true }, { Authorization: `Bearer ${acct.key}` }),
      );
      expect(status).toBe(202);
      expect(Object.keys(body.data.job)).toEqual([
        "id",
        "status",
        "total",
        "duplicate_count",
        "processed",
        "valid",
        "invalid",
        "low",
        "medium",
        "high",
        "credits_used",
        "stopped_reason",
        "cancel_requested",
        "webhook_status",
        "webhook_detail",
        "country",
        "deliverability",
        "created_at",
        "finished_at",
      ]);
      expect(body.data.job).toMatchObject({
        status: "queued",
        total: 5,
        duplicate_count: 1,
        country: "US",
        deliverability: true,
        finished_at: null,
      });
      const job = await settled(acct, body.data.job.id);
      expect(job).toMatchObject({
        status: "completed",
        processed: 5,
        valid: 4,
        invalid: 1,
        low: 3,
        medium: 2,
        high: 0,
        credits_used: 2,
        country: "US",
        deliverability: true,
      });
      expect(typeof job.finished_at).toBe("string");

      const results = await (await fetchCsv(`/api/v1/address/bulk/${job.id}/results`, await anotherKey(acct))).text();
      const [header, ...lines] = results.trim().split("\n");
      expect(header).toBe(
        "index,input,country,validity,verification,precision,reason,line1,line2,locality,region,postcode,formatted," +
          "postcode_found,locality_matches_postcode,region_matches_postcode,po_box,missing_components,latitude," +
          "longitude,deliverable,risk_score,risk_level,policy_action,policy_rules_hit,credits_used,suppressed",
      );
      expect(lines).toHaveLength(5);
      expect(lines[0]).toBe(
        '0,"{""address"":""1 Main St, Springfield, IL 62701"",""country"":""US""}",US,valid,verified,locality,,1 ' +
          "Main " +
          'St,,Springfield,IL,62701,"1 Main St, Springfield, IL ' +
          '62701",true,true,true,false,,39.8,-89.6495,,15,low,,,1,false',
      );
      const medium = (
        await (await fetchCsv(`/api/v1/address/bulk/${job.id}/results?variant=medium`, await anotherKey(acct))).text()
      )
        .trim()
        .split("\n")
        .slice(1);
      expect(medium.map((line) => line.split(",")[0])).toEqual(["2", "3"]);
    },
  );

  it(
    "defaults deliverability to false and country to null, and refuses a row that has no country (422, nothing " +
      "stored)",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const refused = await call(
        "/api/v1/address/bulk",
        json({ addresses: [ROWS[1], ROWS[2]] }, { Authorization: `Bearer ${acct.key}` }),
      );
      expect([refused.status, refused.body.error.code, Object.keys(refused.body.error.errors!)]).toEqual([
        422,
        "VALIDATION_FAILED",
        ["addresses.0"],
      ]);
      const { body } = await call<{ job: Job }>(
        "/api/v1/address/bulk",
        json({ addresses: [ROWS[2]] }, { Authorization: `Bearer ${await anotherKey(acct)}` }),
      );
      expect(body.data.job).toMatchObject({ country: null, deliverability: false });
    },
  );
});

describe("address monitors", () => {
  it("creates a monitor of addresses and runs it: a first run sets baselines and bills verified entries", async () => {
    const acct = await createAccount({ pack: 10 });
    const created = await call<{ monitor: { id: number } }>(
      "/api/v1/address/monitors",
      json(
        {
          name: "Shops",
          addresses: [
            { address: "1 Main St, Springfield, IL 62701", country: "US" },
            { address: "Via Roma 1, 00184 Roma", country: "IT" },
          ],
          cadence: "monthly",
        },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect(created.status).toBe(201);
    const run = await call<Record<string, any>>(
      `/api/v1/address/monitors/${created.body.data.monitor.id}/run`,
      json({}, { Authorization: `Bearer ${await anotherKey(acct)}` }),
    );
    expect(run.body.data.monitor.last_summary).toMatchObject({
      checked: 2,
      new_baselines: 2,
      credits_used: 1,
      verified: 1,
    });
  });
});

const fetchCsv = async (path: string, key: string) => {
  const { SELF } = await import("cloudflare:test");
  return SELF.fetch(`https://api.test${path}`, bearer(key));
};
