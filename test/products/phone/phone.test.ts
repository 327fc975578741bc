/**
 * POST /api/v1/phone (products.md "Phone"): the result fields, cleaning, validation errors as free answers, the
 * prefix tables from D1 with their versions in `sources`, billing and the repeat window, and datasets not installed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import manifest from "../../../datasets/phone/manifest.json";
import { readItem } from "../../../src/products/phone/numbering";
import { admin, bearer, call, createAccount, json } from "../../helpers";
import {
  installPhoneSamples,
  phoneSampleRows,
  sampleValue,
  sampleVersion,
  ukMobile,
  uninstallPhoneDatasets,
} from "../../phone-samples";

const PLAN = manifest.datasets.find((d) => d.name === "phone-numbering-plan")!;

const lookup = (key: string, body: Record<string, unknown>) =>
  call<Record<string, unknown>>("/api/v1/phone", json(body, { Authorization: `Bearer ${key}` }));

/** A disposable GB number the sample carries, and the day it was last seen. */
function sampleDisposable() {
  const [code, national, lastSeen] = phoneSampleRows()
    .get("phone-disposable")!
    .find(([c, n]) => c === "44" && readItem(`+44${n}`).valid)!;
  return { e164: `+${code}${national}`, lastSeen };
}

beforeAll(() => installPhoneSamples());

describe("POST /api/v1/phone", () => {
  it(
    "answers a valid mobile with plan, carrier and zones, citing every dataset's version; 1 credit, then free as a " +
      "repeat",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const number = ukMobile();
      const first = await lookup(acct.key, { phone: number });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({
        phone: number,
        valid: true,
        possible: true,
        validation_error: null,
        e164: number,
        national_format: `0${number.slice(3, 7)} ${number.slice(7)}`,
        international_format: `+44 ${number.slice(3, 7)} ${number.slice(7)}`,
        country: "GB",
        calling_code: "44",
        line_type: "mobile",
        carrier: sampleValue("phone-carriers", "44", number.slice(3)),
        location: null,
        timezones: sampleValue("phone-timezones", "44", number.slice(3))!.split("&"),
        // The sample of the receive-SMS list is no whole list: a number it lacks is not known to be clean.
        disposable: null,
        disposable_last_seen: null,
        network_checked: false,
        network_status: null,
        // The carrier and zones came from the sample tables: a synthetic row, said in the reason as well.
        reason: "sample_data",
        risk_score: 0,
        risk_level: "low",
        risk_components: {},
        missing_datasets: [],
      });
      expect(first.body.data.carrier).toEqual(expect.any(String));
      expect(first.body.data.sources).toEqual([
        { dataset: "phone-numbering-plan", version: PLAN.version, coverage: "full" },
        ...(["phone-carriers", "phone-geocodes", "phone-timezones", "phone-disposable"] as const).map((dataset) => ({
          dataset,
          version: sampleVersion(dataset),
          coverage: "sample",
        })),
      ]);
      expect(first.body.meta).toMatchObject({
        credits_used: 1,
        credits_remaining: 4,
        cache_hit: false,
        suppressed: false,
        request_id: expect.any(String),
      });
      const repeat = await lookup(acct.key, {
        phone: `tel:${number.slice(0, 3)} (${number.slice(3, 7)}) ${number.slice(7)}`,
      });
      expect(repeat.body.data).toMatchObject({ e164: number, phone: number });
      expect(repeat.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 4, cache_hit: true });
    },
  );

  it("reads a number written without + in its country, with the place of its prefix", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookup(acct.key, { phone: "020 7946 0123", country: "gb" });
    expect(body.data).toMatchObject({
      phone: "02079460123",
      valid: true,
      e164: "+442079460123",
      line_type: "fixed_line",
      location: "London",
      country: "GB",
    });
    const swiss = await lookup(acct.key, { phone: "+41 44 668 18 00" });
    expect(swiss.body.data).toMatchObject({
      valid: true,
      country: "CH",
      location: "Zurich",
      timezones: ["Europe/Zurich"],
      line_type: "fixed_line",
    });
  });

  it("answers INVALID_COUNTRY, free, for a number without + and without country", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await lookup(acct.key, { phone: "020 7946 0123" });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      phone: "02079460123",
      valid: false,
      possible: false,
      validation_error: "INVALID_COUNTRY",
      e164: null,
      country: null,
      line_type: "unknown",
      reason: "invalid_number",
      risk_score: 100,
      risk_level: "high",
    });
    expect(body.data.sources).toEqual([{ dataset: "phone-numbering-plan", version: PLAN.version, coverage: "full" }]);
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
  });

  it.each([
    ["+44 20", "TOO_SHORT"],
    ["+44 7911 1234567890", "TOO_LONG"],
    ["call me", "NOT_A_NUMBER"],
    ["+999 123456", "INVALID_COUNTRY"],
  ])("answers %s with validation_error %s, free", async (phone, error) => {
    const acct = await createAccount({ pack: 1 });
    const { status, body } = await lookup(acct.key, { phone });
    expect([status, body.data.valid, body.data.validation_error, body.data.reason, body.meta.credits_used]).toEqual([
      200,
      false,
      error,
      "invalid_number",
      0,
    ]);
  });

  it("answers a possible number the plan does not assign invalid with no length error, free", async () => {
    const acct = await createAccount({ pack: 1 });
    const { body } = await lookup(acct.key, { phone: "+44 7700 950123" });
    expect(body.data).toMatchObject({ valid: false, possible: true, validation_error: null, reason: "invalid_number" });
    expect(body.meta.credits_used).toBe(0);
  });

  it(
    "flags a number seen on receive-SMS sites: reason disposable, last-seen date, risk 80, still 1 " + "credit",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { e164, lastSeen } = sampleDisposable();
      const { body } = await lookup(acct.key, { phone: e164 });
      expect(body.data).toMatchObject({
        valid: true,
        disposable: true,
        disposable_last_seen: lastSeen,
        reason: "disposable",
        risk_components: { disposable: 80 },
      });
      expect(body.data.risk_score).toBeGreaterThanOrEqual(80);
      expect(body.meta.credits_used).toBe(1);
    },
  );

  it("gives premium-rate numbers reason premium_rate and their risk points", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookup(acct.key, { phone: "+44 909 879 0123" });
    expect(body.data).toMatchObject({
      valid: true,
      line_type: "premium_rate",
      reason: "premium_rate",
      risk_score: 60,
      risk_level: "medium",
      risk_components: { premium_rate: 60 },
    });
  });

  it("answers 422 for a malformed request, free", async () => {
    const acct = await createAccount({ pack: 1 });
    for (const body of [
      {},
      { phone: "1".repeat(65) },
      { phone: "+447400123456", country: "GBR" },
      { phone: 447400123456 },
    ]) {
      const res = await lookup(acct.key, body);
      expect([res.status, res.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
  });

  it("refuses a key without the phone scope and a fresh number with no credits", async () => {
    const scoped = await createAccount({ pack: 1, key: { scopes: ["email"] } });
    expect((await lookup(scoped.key, { phone: ukMobile() })).body.error.code).toBe("KEY_SCOPE_DENIED");
    const broke = await createAccount();
    const refused = await lookup(broke.key, { phone: ukMobile() });
    expect([refused.status, refused.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect((await lookup(broke.key, { phone: "+44 20" })).status).toBe(200);
  });
});

describe("datasets not installed", () => {
  it("answers with nulls and names the missing tables, still billing the plan's valid answer", async () => {
    await uninstallPhoneDatasets(["phone-carriers", "phone-disposable"]);
    try {
      const acct = await createAccount({ pack: 5 });
      const { status, body } = await lookup(acct.key, { phone: ukMobile() });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        valid: true,
        carrier: null,
        disposable: null,
        missing_datasets: ["phone-carriers", "phone-disposable"],
        // The sample's zones still answered.
        reason: "sample_data",
      });
      expect((body.data.sources as { dataset: string }[]).map((s) => s.dataset)).toEqual([
        "phone-numbering-plan",
        "phone-geocodes",
        "phone-timezones",
      ]);
      expect(body.meta.credits_used).toBe(1);
    } finally {
      await installPhoneSamples(["phone-carriers", "phone-disposable"]);
    }
  });
});

describe("loading a new version of a table", () => {
  it(
    "answers from the old rows until the new version is installed, then from the new; old rows are then " + "removed",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const number = ukMobile();
      const next = `${sampleVersion("phone-carriers").slice(0, 19)}-next`;
      await admin("POST", "/phone-datasets/phone-carriers/rows", {
        version: next,
        rows: [["44", "7400", "Next Carrier"]],
      });
      const before = await lookup(acct.key, { phone: number });
      expect(before.body.data.carrier).toBe(sampleValue("phone-carriers", "44", number.slice(3)));
      try {
        await admin("POST", "/phone-datasets/phone-carriers/install", {
          version: next,
          records: 1,
          coverage: { kind: "full" },
        });
        const after = await lookup(acct.key, { phone: ukMobile() });
        expect(after.body.data.carrier).toBe("Next Carrier");
        expect(after.body.data.sources).toContainEqual({ dataset: "phone-carriers", version: next, coverage: "full" });
        expect(await admin("DELETE", "/phone-datasets/phone-carriers", { keep: next })).toMatchObject({
          deleted: phoneSampleRows().get("phone-carriers")!.length,
          done: true,
        });
      } finally {
        await uninstallPhoneDatasets(["phone-carriers"]);
        await installPhoneSamples(["phone-carriers"]);
      }
    },
  );
});

describe("GET /api/v1/status/data", () => {
  it("lists the bundled plan and test numbers and the installed prefix tables with their versions", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; version: string; records: number }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    const phone = body.data.datasets.filter((d) => d.name.startsWith("phone-"));
    expect(phone.map((d) => [d.name, d.version])).toEqual([
      ["phone-carriers", sampleVersion("phone-carriers")],
      ["phone-disposable", sampleVersion("phone-disposable")],
      ["phone-geocodes", sampleVersion("phone-geocodes")],
      ["phone-numbering-plan", PLAN.version],
      ["phone-test-numbers", manifest.datasets.find((d) => d.name === "phone-test-numbers")!.version],
      ["phone-timezones", sampleVersion("phone-timezones")],
    ]);
    expect(phone.find((d) => d.name === "phone-carriers")!.records).toBe(
      phoneSampleRows().get("phone-carriers")!.length,
    );
  });
});
