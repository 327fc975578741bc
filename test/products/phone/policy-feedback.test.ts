import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCsvLine } from "../../../src/engines/bulk/csv";
import { admin, anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installPhoneSamples, ukMobile } from "../../phone-samples";

/**
 * Phone sending policy and posted delivery feedback over HTTP (docs/phone.md "Sending policy", docs/phone-feedback.md):
 * the decision on every path without changing a price; permanent failures answered `undelivered` by lists and monitors.
 */
type Answer = {
  valid: boolean;
  reason: string | null;
  policy: { action: string; rules_hit: string[] } | null;
  sources: { dataset: string; version: string }[];
};
type Batch = { results: { data: Answer; meta: { credits_used: number; cache_hit: boolean; suppressed: boolean } }[] };

beforeAll(() => installPhoneSamples());

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const single = (key: string, phone: string) => call<Answer>("/api/v1/phone", json({ phone }, auth(key)));
const batch = (key: string, phones: unknown[]) => call<Batch>("/api/v1/phone/batch", json({ phones }, auth(key)));
const feedback = (key: string, events: unknown[]) =>
  call<{ recorded: number; suppressed: number; invalid: number[] }>(
    "/api/v1/phone/feedback",
    json({ events }, auth(key)),
  );

async function keyPool(acct: TestAccount) {
  const pool = [acct.key, await anotherKey(acct), await anotherKey(acct)];
  let i = 0;
  return () => pool[i++ % pool.length]!;
}

async function bulkRows(key: () => string, phones: string[]) {
  const created = await call<{ job: { id: number } }>("/api/v1/phone/bulk", json({ phones }, auth(key())));
  for (let i = 0; i < 240; i++) {
    const { body } = await call<{ job: { status: string } }>(
      `/api/v1/phone/bulk/${created.body.data.job.id}`,
      bearer(key()),
    );
    if (!["queued", "processing"].includes(body.data.job.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const text = await (
    await SELF.fetch(`https://api.test/api/v1/phone/bulk/${created.body.data.job.id}/results`, bearer(key()))
  ).text();
  return text.trim().split("\n").map(parseCsvLine);
}

describe("GET, PUT, DELETE /api/v1/phone/policy", () => {
  it(
    "stores the rules, decides single, batch, browser and bulk answers, and never changes what they " + "cost",
    async () => {
      const acct = await createAccount({ pack: 20 });
      const key = await keyPool(acct);
      expect((await call("/api/v1/phone/policy", bearer(key()))).body.data).toEqual({ policy: null });
      expect(
        (await call("/api/v1/phone/policy", json({ blocked_line_types: ["voip"] }, auth(key()), "PUT"))).status,
      ).toBe(422);
      expect(
        (await call("/api/v1/phone/policy", json({ allowed_countries: ["GBR"] }, auth(key()), "PUT"))).status,
      ).toBe(422);

      const rules = {
        allowed_countries: ["gb"],
        line_types: { fixed_line: "review" },
        reasons: { invalid_number: "block" },
        risk_level: { high: "block" },
      };
      const put = await call<{ policy: { rules: Record<string, unknown> } }>(
        "/api/v1/phone/policy",
        json(rules, auth(key()), "PUT"),
      );
      expect(put.status).toBe(200);
      expect(put.body.data.policy.rules).toEqual({ ...rules, allowed_countries: ["GB"] });

      const [mobile, other] = [ukMobile(), ukMobile()];
      const phones = [mobile, { phone: "020 7946 0123", country: "GB" }, "+41 44 668 18 00", "+44 20", "+447700900004"];
      const { body } = await batch(key(), phones);
      expect(body.data.results.map((r) => r.data.policy)).toEqual([
        { action: "send", rules_hit: [] },
        { action: "review", rules_hit: ["line_types.fixed_line"] },
        { action: "block", rules_hit: ["allowed_countries", "line_types.fixed_line"] },
        { action: "block", rules_hit: ["risk_level.high", "reasons.invalid_number"] },
        { action: "block", rules_hit: ["risk_level.high"] },
      ]);
      expect(body.data.results.map((r) => r.meta.credits_used)).toEqual([1, 1, 1, 0, 0]);
      expect(body.meta).toMatchObject({ credits_used: 3, credits_remaining: 17 });

      const one = await single(key(), other);
      expect([one.body.data.policy, one.body.meta]).toEqual([
        { action: "send", rules_hit: [] },
        { credits_used: 1, credits_remaining: 16, cache_hit: false, suppressed: false, request_id: expect.any(String) },
      ]);

      const pk = (
        await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
          allowed_domains: ["shop.example"],
        })
      ).key;
      const browser = await call<Answer>(
        "/api/v1/phone/public",
        json({ key: pk, phone: "+41446681800" }, { Origin: "https://shop.example" }),
      );
      // A browser answer carries the action only: the site's rules are not every visitor's to read.
      expect(browser.body.data.policy).toEqual({ action: "block" });

      const rows = await bulkRows(key, [mobile, "+41 44 668 18 00"]);
      const header = rows[0]!;
      const cells = rows
        .slice(1)
        .map((row) => [
          row[header.indexOf("policy_action")],
          row[header.indexOf("policy_rules_hit")],
          row[header.indexOf("credits_used")],
        ]);
      expect(cells).toEqual([
        ["send", "", "0"],
        ["block", "allowed_countries line_types.fixed_line", "0"],
      ]);

      expect((await call("/api/v1/phone/policy", json({}, auth(key()), "DELETE"))).body.data).toEqual({
        deleted: true,
      });
      expect((await batch(key(), [mobile])).body.data.results[0]!.data.policy).toBeNull();
    },
  );
});

describe("POST /api/v1/phone/feedback", () => {
  it(
    "records outcomes by country; a permanent failure is answered undelivered by batches, free, citing " +
      "delivery-feedback",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const key = await keyPool(acct);
      const [gone, away, ok] = [ukMobile(), ukMobile(), ukMobile()];
      const events = [
        {
          phone: gone,
          outcome: "failed",
          failure: "permanent",
          occurred_at: "2026-05-04T10:00:00Z",
          detail: "number not in service",
        },
        { phone: { phone: away.replace("+44", "0"), country: "GB" }, outcome: "failed", failure: "temporary" },
        { phone: ok, outcome: "delivered" },
        { phone: "+41 44 668 18 00", outcome: "rejected" },
        { phone: "+44 20", outcome: "delivered" },
      ];
      const posted = await feedback(key(), events);
      expect([posted.status, posted.body.data]).toEqual([200, { recorded: 4, suppressed: 1, invalid: [4] }]);
      expect((await feedback(key(), [{ phone: ok, outcome: "delivered", failure: "permanent" }])).status).toBe(422);

      const summary = await call<Record<string, unknown>>("/api/v1/phone/feedback/summary", bearer(key()));
      expect(summary.body.data).toMatchObject({
        total: 4,
        outcomes: { delivered: 1, failed: 2, rejected: 1, opted_out: 0 },
        kinds: { failed: { permanent: 1, temporary: 1 } },
        by_country: [
          { country: "GB", total: 3, delivered: 1, failed: 2, rejected: 0, opted_out: 0 },
          { country: "CH", total: 1, delivered: 0, failed: 0, rejected: 1, opted_out: 0 },
        ],
        ignored: 0,
      });

      const listed = await batch(key(), [gone, away]);
      const [suppressed, kept] = listed.body.data.results;
      expect(suppressed!.meta).toEqual({ credits_used: 0, cache_hit: false, suppressed: true });
      expect(suppressed!.data).toMatchObject({ valid: true, reason: "undelivered", risk_level: "high" });
      expect(suppressed!.data.sources).toContainEqual({
        dataset: "delivery-feedback",
        version: "2026-05-04",
        coverage: "full",
      });
      expect([kept!.meta.credits_used, kept!.data.reason]).toEqual([1, "sample_data"]);

      // A single lookup answers fresh (and bills) without lifting what the account's own sending reported.
      const fresh = await single(key(), gone);
      expect([fresh.body.data.reason, fresh.body.meta.credits_used]).toEqual(["sample_data", 1]);
      expect((await batch(key(), [gone])).body.data.results[0]!.meta.suppressed).toBe(true);
    },
  );
});

describe("phone monitors and delivery feedback", () => {
  it("raise delivery_failed for a number whose permanent failure was reported since its baseline, once", async () => {
    const acct = await createAccount({ pack: 10 });
    const key = await keyPool(acct);
    const [watched, quiet] = [ukMobile(), ukMobile()];
    const created = await call<{ monitor: { id: number } }>(
      "/api/v1/phone/monitors",
      json({ name: "SMS list", phones: [watched, quiet], cadence: "weekly" }, auth(key())),
    );
    const run = () =>
      call<{
        summary: Record<string, unknown>;
        changes: { identifier: string; changes: unknown[] }[];
        flags: Record<string, string[]>;
      }>(`/api/v1/phone/monitors/${created.body.data.monitor.id}/run`, json({}, auth(key())));
    expect((await run()).body.data.flags).toEqual({});

    await feedback(key(), [
      { phone: watched, outcome: "failed", failure: "permanent" },
      { phone: quiet, outcome: "failed", failure: "temporary" },
    ]);
    const second = await run();
    expect(second.body.data.flags).toEqual({ [watched]: ["delivery_failed"] });
    expect(second.body.data.changes.find((c) => c.identifier === watched)!.changes).toContainEqual({
      field: "undelivered",
      from: false,
      to: true,
    });
    expect(second.body.data.summary).toMatchObject({ checked: 2, changed: 1, credits_used: 0 });
    expect((await run()).body.data.flags).toEqual({});
  });
});
