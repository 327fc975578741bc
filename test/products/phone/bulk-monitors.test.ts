/**
 * Phone bulk runs and monitors over HTTP (spec "Events": `bulk_phone_job.finished`, `phone_monitor.run` with `flags`):
 * the run's counters (a row adds to `valid`/`invalid`, its line type and `disposable`), CSV results and variants, the
 * completion webhook; a monitor's flags for numbers newly flagged since their baseline.
 */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCsvLine } from "../../../src/engines/bulk/csv";
import { flags } from "../../../src/products/phone/monitor";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installPhoneSamples, sampleVersion, ukMobile } from "../../phone-samples";
import { deliveredAt, WebhookVerifier } from "../../webhook-receiver";

beforeAll(() => installPhoneSamples());

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

async function settled(acct: TestAccount, jobId: number): Promise<Record<string, unknown>> {
  const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  for (let i = 0; i < 240; i++) {
    const { body } = await call<{ job: Record<string, unknown> }>(
      `/api/v1/phone/bulk/${jobId}`,
      bearer(keys[i % keys.length]!),
    );
    if (!["queued", "processing"].includes(body.data.job.status as string)) return body.data.job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`job ${jobId} did not settle`);
}

const csv = async (key: string, path: string) => (await SELF.fetch(`https://api.test${path}`, bearer(key))).text();

/** Adds a row to an installed prefix table, as a newer version of the data would. */
const addRow = (dataset: "phone-carriers" | "phone-disposable", row: [string, string, string]) =>
  admin("POST", `/phone-datasets/${dataset}/rows`, { version: sampleVersion(dataset), rows: [row] });

describe("POST /api/v1/phone/bulk", () => {
  it(
    "counts valid, invalid, mobile, fixed_line, voip and disposable, writes CSV results and posts " +
      "bulk_phone_job.finished",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const mobile = ukMobile();
      const disposable = ukMobile();
      await addRow("phone-disposable", ["44", disposable.slice(3), "2024-05-01"]);
      const phones = [
        mobile,
        { phone: "020 7946 0123", country: "GB" },
        "+44 56 1234 5678",
        disposable,
        "+44 20",
        mobile,
      ];
      const path = `/ok/phone-bulk-${crypto.randomUUID()}`;
      const created = await call<{ job: { id: number }; webhook_secret: string }>(
        "/api/v1/phone/bulk",
        json({ phones, webhook_url: `${env.RECEIVER_URL}${path}` }, auth(acct.key)),
      );
      expect(created.status).toBe(202);
      const job = await settled(acct, created.body.data.job.id);
      const counts = { valid: 5, invalid: 1, mobile: 3, fixed_line: 1, voip: 1, disposable: 1 };
      expect(job).toMatchObject({
        status: "completed",
        total: 6,
        duplicate_count: 1,
        processed: 6,
        ...counts,
        credits_used: 4,
        stopped_reason: null,
      });

      const key = await anotherKey(acct);
      const lines = (await csv(key, `/api/v1/phone/bulk/${job.id}/results`)).trim().split("\n");
      expect(lines[0]).toBe(
        "index,input,phone,valid,e164,country,line_type,carrier,location,disposable,reason,risk_score,risk_level," +
          "policy_action,policy_rules_hit,credits_used,suppressed",
      );
      // A signed number stays as written; an input with spaces after `+` is guarded like any formula-looking cell.
      expect(lines.slice(1).map((line) => parseCsvLine(line).slice(0, 5))).toEqual([
        ["0", mobile, mobile, "true", mobile],
        ["1", '{"phone":"020 7946 0123","country":"GB"}', "02079460123", "true", "+442079460123"],
        ["2", "'+44 56 1234 5678", "+445612345678", "true", "+445612345678"],
        ["3", disposable, disposable, "true", disposable],
        ["4", "'+44 20", "+4420", "false", ""],
        ["5", mobile, mobile, "true", mobile],
      ]);
      const mobiles = (await csv(key, `/api/v1/phone/bulk/${job.id}/results?variant=mobile`))
        .trim()
        .split("\n")
        .slice(1);
      expect(mobiles.map((line) => line.split(",")[0])).toEqual(["0", "3", "5"]);

      const [delivery] = await deliveredAt(path, 1, 30_000);
      expect(
        await new WebhookVerifier(created.body.data.webhook_secret).verify(delivery!.headers, delivery!.body),
      ).toBe("ok");
      expect(JSON.parse(delivery!.body)).toMatchObject({
        event: "bulk_phone_job.finished",
        job: { id: job.id, status: "completed", total: 6, processed: 6, ...counts, credits_used: 4 },
      });
    },
  );

  it("refuses more than 100,000 numbers with 422", async () => {
    const acct = await createAccount({ pack: 1 });
    const { status } = await call(
      "/api/v1/phone/bulk",
      json({ phones: Array.from({ length: 100_001 }, () => "+1") }, auth(acct.key)),
    );
    expect(status).toBe(422);
  });
});

describe("phone monitors", () => {
  it("posts phone_monitor.run with flags mapping each newly flagged number to its change flags", async () => {
    const acct = await createAccount({ pack: 10 });
    const [watched, quiet] = [ukMobile(), ukMobile()];
    const path = `/ok/phone-monitor-${crypto.randomUUID()}`;
    const created = await call<{ monitor: { id: number; phones: unknown[] }; webhook_secret: string }>(
      "/api/v1/phone/monitors",
      json(
        {
          name: "Signups",
          phones: [watched, quiet, "+44 20"],
          cadence: "weekly",
          webhook_url: `${env.RECEIVER_URL}${path}`,
        },
        auth(acct.key),
      ),
    );
    expect(created.status).toBe(201);
    expect(created.body.data.monitor.phones).toEqual([watched, quiet, "+44 20"]);
    const id = created.body.data.monitor.id;
    const first = await call<{ summary: Record<string, unknown>; flags: Record<string, string[]> }>(
      `/api/v1/phone/monitors/${id}/run`,
      json({}, auth(acct.key)),
    );
    expect(first.body.data.summary).toMatchObject({
      checked: 3,
      valid: 2,
      disposable: 0,
      changed: 0,
      new_baselines: 3,
      credits_used: 2,
    });
    expect(first.body.data.flags).toEqual({});

    await addRow("phone-carriers", ["44", watched.slice(3), "Ported Later Ltd"]);
    await addRow("phone-disposable", ["44", watched.slice(3), "2024-06-01"]);
    const key = await anotherKey(acct);
    const second = await call<{
      summary: Record<string, unknown>;
      changes: { identifier: string; changes: { field: string }[] }[];
      flags: Record<string, string[]>;
    }>(`/api/v1/phone/monitors/${id}/run`, json({}, auth(key)));
    expect(second.body.data.summary).toMatchObject({ checked: 3, changed: 1, disposable: 1, credits_used: 0 });
    expect(second.body.data.changes).toMatchObject([
      { identifier: watched, changes: [{ field: "carrier" }, { field: "disposable" }] },
    ]);
    expect(second.body.data.flags).toEqual({ [watched]: ["carrier_changed", "became_disposable"] });
    const [delivery] = await deliveredAt(path, 1, 30_000);
    expect(await new WebhookVerifier(created.body.data.webhook_secret).verify(delivery!.headers, delivery!.body)).toBe(
      "ok",
    );
    expect(JSON.parse(delivery!.body)).toMatchObject({
      event: "phone_monitor.run",
      flags: { [watched]: ["carrier_changed", "became_disposable"] },
    });
  });
});

describe("monitor change flags", () => {
  const seen = { valid: true, line_type: "mobile", carrier: "Three", location: null, disposable: false };
  it.each([
    ["a number the plan no longer assigns", { ...seen, valid: false, line_type: "unknown" }, ["became_invalid"]],
    ["a range re-typed", { ...seen, line_type: "voip" }, ["line_type_changed"]],
    ["a new allocation holder", { ...seen, carrier: "O2" }, ["carrier_changed"]],
    ["a carrier table not installed", { ...seen, carrier: null }, []],
    ["a number on a receive-SMS site", { ...seen, disposable: true }, ["became_disposable"]],
    ["a move of place only", { ...seen, location: "London" }, []],
    ["a permanent delivery failure reported", { ...seen, carrier: null, undelivered: true }, ["delivery_failed"]],
  ])("flags %s", (_label, now, expected) => {
    expect(flags(seen, now)).toEqual(expected);
  });
});
