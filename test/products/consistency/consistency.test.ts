/**
 * POST /api/v1/consistency (products.md "Consistency"): requests, billing (1 credit when a check was decided and the
 * answer is fresh, the signals inside never billed, repeats of the same normalized signal set free for 7 days), test
 * values, the sandbox and the scope.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../../src/auth/keys";
import type { ConsistencyResult } from "../../../src/products/consistency/result";
import { accountRows, call, createAccount, json } from "../../helpers";
import { installConsistencySamples, LONDON, ukIp } from "../../consistency-samples";
import { ukMobile } from "../../phone-samples";

beforeAll(installConsistencySamples);

const consistency = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call<ConsistencyResult>("/api/v1/consistency", json(body, { Authorization: `Bearer ${key}`, ...headers }));

const repeatRows = (accountId: string) =>
  accountRows<{ product: string; n: number }>(accountId, "SELECT product, COUNT(*) AS n FROM repeats GROUP BY product");

describe("POST /api/v1/consistency: requests", () => {
  it.each([
    [{ phone: "+447400123456" }, "body"],
    [{ phone: "+447400123456", email: null }, "body"],
    [{ phone: 447400123456, ip: "1.1.1.1" }, "phone"],
    [{ ip: "1.1.1.1", address: { line1: "1 High St" } }, "address.country"],
    [{ ip: "1.1.1.1", entity: { identifier: "09900001", type: "company_number" } }, "entity.country"],
  ])("answers 422 VALIDATION_FAILED, free, for %j", async (body, field) => {
    const acct = await createAccount({ pack: 1 });
    const res = await consistency(acct.key, body);
    expect([res.status, res.body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(Object.keys(res.body.error!.errors!)).toContain(field);
  });

  it("answers 403 KEY_SCOPE_DENIED for a key without the consistency scope", async () => {
    const acct = await createAccount({ pack: 1, key: { scopes: ["phone", "ip"] } });
    const res = await consistency(acct.key, { phone: ukMobile(), ip: ukIp() });
    expect([res.status, res.body.error?.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
  });

  it("lists the signals' fields it used and the union of their sources", async () => {
    const acct = await createAccount({ pack: 1 });
    const phone = ukMobile();
    const ip = ukIp();
    const { body } = await consistency(acct.key, { phone, ip });
    expect(body.data.signals).toEqual({
      email: null,
      phone: {
        phone,
        valid: true,
        e164: phone,
        country: "GB",
        line_type: "mobile",
        line_type_source: "numbering_plan",
      },
      ip: {
        ip,
        valid: true,
        reserved: false,
        placed: true,
        country: "GB",
        anonymous: false,
        tor: false,
        hosting: null,
      },
      address: null,
      entity: null,
    });
    const datasets = body.data.sources.map((s) => s.dataset);
    expect(datasets).toEqual(
      expect.arrayContaining(["phone-numbering-plan", "ip-country", "ip-tor-exits", "ip-special-purpose"]),
    );
    expect(body.data.sources).toContainEqual({
      dataset: "ip-country",
      version: "2026-06-17-sampleuk",
      coverage: "sample",
    });
    expect(new Set(datasets.map((d, i) => `${d}@${body.data.sources[i]!.version}`)).size).toBe(datasets.length);
  });

  it("says a sample decided it when a signal's own answer does (the sample country file placed the IP)", async () => {
    const acct = await createAccount({ pack: 2 });
    const ip = ukIp();
    const alone = await call<Record<string, any>>("/api/v1/ip", json({ ip }, { Authorization: `Bearer ${acct.key}` }));
    expect(alone.body.data).toMatchObject({ placed: true, country: "GB", reason: "sample_data" });
    const { body } = await consistency(acct.key, { phone: "+447700900000", ip });
    // The phone is a test number (bundled, whole); the IP's country came from a synthetic sample.
    expect(body.data).toMatchObject({ reason: "sample_data" });
    expect(body.data.agreements).toContain("phone_country_matches_ip_country");
    expect(body.meta.credits_used).toBe(1);
  });
});

describe("POST /api/v1/consistency: billing", () => {
  it(
    "charges 1 for a decided answer, never the signals inside; a repeat of the same signal set, respelled, is free " +
      "for 7 days",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const phone = ukMobile();
      const first = await consistency(acct.key, { phone, address: LONDON });
      expect(first.body.data).toMatchObject({ score: 100, level: "consistent" });
      expect(first.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, cache_hit: false });
      const national = `0${phone.slice(3, 7)} ${phone.slice(7)}`;
      const again = await consistency(acct.key, {
        address: { ...LONDON, postcode: "sw1a2aa", locality: "LONDON" },
        phone: { phone: national, country: "GB" },
      });
      expect(again.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 4, cache_hit: true });
      expect(again.body.data.score).toBe(100);
      // Only the consistency answer opened a repeat window: the phone and address lookups inside were not billed.
      expect(await repeatRows(acct.accountId)).toEqual([{ product: "consistency", n: 1 }]);
      await accountRows(acct.accountId, "UPDATE repeats SET created_at = ?", Date.now() - 7 * 86_400_000 - 60_000);
      expect((await consistency(acct.key, { phone, address: LONDON })).body.meta).toMatchObject({
        credits_used: 1,
        credits_remaining: 3,
        cache_hit: false,
      });
    },
  );

  it("answers free when no check was decided, even with no credits; refuses a decided answer with 402", async () => {
    const acct = await createAccount();
    const undecided = await consistency(acct.key, { phone: ukMobile(), ip: "10.1.2.3" });
    expect(undecided.status).toBe(200);
    expect(undecided.body.data).toMatchObject({ score: null, level: null, agreements: [], disagreements: [] });
    expect(undecided.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 0, cache_hit: false });
    const decided = await consistency(acct.key, { phone: ukMobile(), ip: ukIp() });
    expect([decided.status, decided.body.error?.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
  });

  it("answers test values canonically and free, with no credits, and they open no repeat window", async () => {
    const acct = await createAccount();
    const res = await consistency(acct.key, {
      phone: "+447700900000",
      ip: "192.0.2.2",
      email: "deliverable@service.test",
    });
    expect(res.status).toBe(200);
    expect(
      res.body.data.checks.filter((c) => c.result !== "not_applicable").map((c) => [c.name, c.result, c.reason]),
    ).toEqual([
      ["phone_country_matches_ip_country", "unknown", "ip_anonymous"],
      ["ip_not_anonymous", "disagree", "hosting_network"],
    ]);
    expect(res.body.data).toMatchObject({ score: 0, level: "inconsistent", risk_score: 30 });
    expect(res.body.meta).toMatchObject({ credits_used: 0, cache_hit: false });
    expect(await repeatRows(acct.accountId)).toEqual([]);
  });

  it.each([
    [{ phone: "+447700900000", ip: "192.0.2.1" }, 60, "mixed"],
    [{ phone: "+447700900000", ip: "192.0.2.2" }, 0, "inconsistent"],
    [{ phone: "+447700900000", address: { line1: "verified", country: "ZZ" } }, 40, "inconsistent"],
  ])(
    "answers the documented test value %j with score %s (docs/consistency.md, Test values)",
    async (body, score, level) => {
      const acct = await createAccount();
      const res = await consistency(acct.key, body);
      expect([res.body.data.score, res.body.data.level, res.body.meta.credits_used]).toEqual([score, level, 0]);
    },
  );

  it("lets the sandbox key look up test values only", async () => {
    const headers = { "CF-Connecting-IP": "192.0.2.91" };
    const sample = await consistency(SANDBOX_KEY, { phone: "+447700900001", ip: "192.0.2.1" }, headers);
    expect([sample.status, sample.body.data.score]).toEqual([200, 60]);
    const real = await consistency(SANDBOX_KEY, { phone: ukMobile(), ip: "192.0.2.1" }, headers);
    expect([real.status, real.body.error?.code]).toEqual([403, "SANDBOX_VALUE_NOT_ALLOWED"]);
  });
});
