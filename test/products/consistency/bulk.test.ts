/**
 * Consistency bulk runs over HTTP (docs/consistency.md, "Bulk runs"): the job's counters `consistent`, `mixed`,
 * `inconsistent`, `undecided`, a CSV column per check, the variants, and a row that is not a signal set refused.
 * The engine's own rules (stops, resume, webhooks, redelivery) run for consistency in test/contract/.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../../../src/products/consistency/result";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { hostingIpAbroad, installConsistencySamples, LONDON, ukCompany, ukIp } from "../../consistency-samples";
import { ukMobile } from "../../phone-samples";

beforeAll(installConsistencySamples);

type Job = Record<string, unknown> & { id: number; status: string };

async function settled(acct: TestAccount, jobId: number): Promise<Job> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { body } = await call<{ job: Job }>(`/api/v1/consistency/bulk/${jobId}`, bearer(await anotherKey(acct)));
    if (!["queued", "processing"].includes(body.data.job.status)) return body.data.job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`job ${jobId} did not settle`);
}

const csv = async (acct: TestAccount, path: string) =>
  (await (await SELF.fetch(`https://api.test${path}`, bearer(await anotherKey(acct)))).text()).trim().split("\n");

describe("POST /consistency/bulk", () => {
  it(
    "counts consistent, mixed, inconsistent and undecided rows, bills decided ones, and writes a column per " + "check",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const phone = ukMobile();
      const rows = [
        ukCompany(ukIp()), // consistent
        { phone: ukMobile(), ip: "192.0.2.1" }, // mixed: GB phone, US test IP that is not anonymous (3 / 5)
        // inconsistent
        { phone: ukMobile(), address: { ...LONDON, country: "FR", postcode: "75001", locality: "Paris" } },
        { phone, ip: "10.9.8.7" }, // undecided, free
        { phone: `tel:${phone}`, ip: "10.9.8.7" }, // the same set respelled
        { phone: ukMobile(), ip: hostingIpAbroad() }, // inconsistent: hosting network, IP country unknown
      ];
      const { status, body } = await call<{ job: Job }>(
        "/api/v1/consistency/bulk",
        json({ rows }, { Authorization: `Bearer ${acct.key}` }),
      );
      expect(status).toBe(202);
      expect(body.data.job).toMatchObject({
        status: "queued",
        total: 6,
        duplicate_count: 1,
        consistent: 0,
        mixed: 0,
        inconsistent: 0,
        undecided: 0,
      });
      const job = await settled(acct, body.data.job.id);
      expect(job).toMatchObject({
        status: "completed",
        processed: 6,
        consistent: 1,
        mixed: 1,
        inconsistent: 2,
        undecided: 2,
        credits_used: 4,
      });

      const [header, ...lines] = await csv(acct, `/api/v1/consistency/bulk/${job.id}/results`);
      expect(header).toBe(
        [
          "index",
          "input",
          "score",
          "level",
          ...CHECK_NAMES,
          "agreements",
          "disagreements",
          "risk_score",
          "risk_level",
          "credits_used",
          "suppressed",
        ].join(","),
      );
      expect(lines).toHaveLength(6);
      expect(lines[1]).toMatch(
        /^1,".*",60,mixed,disagree,not_applicable,not_applicable,not_applicable,not_applicable,not_applicable,not_applicable,not_applicable,not_applicable,not_applicable,agree,not_applicable,ip_not_anonymous,phone_country_matches_ip_country,20,low,1,false$/,
      );
      expect(lines[3]).toMatch(/,,,unknown,.*,0,low,0,false$/);
      const undecided = await csv(acct, `/api/v1/consistency/bulk/${job.id}/results?variant=undecided`);
      expect(undecided.slice(1).map((line) => line.split(",")[0])).toEqual(["3", "4"]);
    },
  );

  it("refuses a row with fewer than two signals (422, nothing stored)", async () => {
    const acct = await createAccount({ pack: 1 });
    const refused = await call(
      "/api/v1/consistency/bulk",
      json(
        { rows: [{ phone: ukMobile(), ip: ukIp() }, { phone: ukMobile() }] },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect([refused.status, refused.body.error.code, Object.keys(refused.body.error.errors!)]).toEqual([
      422,
      "VALIDATION_FAILED",
      ["rows.1"],
    ]);
  });
});
