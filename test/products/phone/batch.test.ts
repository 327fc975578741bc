/**
 * POST /api/v1/phone/batch and /phone/public (products.md "Phone", "Shared by every product"), the test numbers
 * (docs/phone.md), the sandbox key, and the suppression list and history routes the engines mount for phone.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_KEY } from "../../../src/auth/keys";
import { TEST_PHONE_NUMBERS } from "../../../src/products/phone/test-numbers";
import { admin, bearer, call, createAccount, json } from "../../helpers";
import { installPhoneSamples, ukMobile } from "../../phone-samples";

const batch = (key: string, phones: unknown[]) =>
  call<{ results: { index: number; input: unknown; data: Record<string, unknown>; meta: Record<string, unknown> }[] }>(
    "/api/v1/phone/batch",
    json({ phones }, { Authorization: `Bearer ${key}` }),
  );

beforeAll(() => installPhoneSamples());

describe("POST /api/v1/phone/batch", () => {
  it(
    "answers strings and {phone, country} items in order, echoing each input; duplicates once; meta of the " + "batch",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const a = ukMobile();
      const items = [
        a,
        { phone: "020 7946 0123", country: "GB" },
        "020 7946 0123",
        { phone: a.replace("+44", "0"), country: "GB" },
        "nonsense",
      ];
      const { status, body } = await batch(acct.key, items);
      expect(status).toBe(200);
      expect(body.data.results.map((r) => [r.index, r.input, r.data.valid, r.data.validation_error, r.meta])).toEqual([
        [0, items[0], true, null, { credits_used: 1, cache_hit: false, suppressed: false }],
        [1, items[1], true, null, { credits_used: 1, cache_hit: false, suppressed: false }],
        [2, items[2], false, "INVALID_COUNTRY", { credits_used: 0, cache_hit: false, suppressed: false }],
        [3, items[3], true, null, { credits_used: 0, cache_hit: true, suppressed: false }],
        [4, items[4], false, "NOT_A_NUMBER", { credits_used: 0, cache_hit: false, suppressed: false }],
      ]);
      expect(body.meta).toMatchObject({
        requested: 5,
        processed: 5,
        credits_used: 2,
        credits_remaining: 8,
        stopped_reason: null,
        request_id: expect.any(String),
      });
    },
  );

  it("takes 1,000 numbers and refuses 1,001 or none with 422", async () => {
    const acct = await createAccount({ pack: 1 });
    const thousand = Array.from({ length: 1_000 }, (_, i) => `+44 20 7946 ${String(i).padStart(4, "0")}`);
    const { status, body } = await batch(acct.key, thousand);
    expect([status, body.meta.processed, body.meta.stopped_reason]).toEqual([200, 1, "insufficient_credits"]);
    for (const phones of [[...thousand, "+442079461000"], []]) {
      const refused = await batch(acct.key, phones);
      expect([refused.status, refused.body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
  });

  it(
    "answers a number suppressed by hand from the list, free, with reason suppressed; a single lookup ignores the " +
      "list",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const number = ukMobile();
      const added = await call<{ added: number; invalid: string[] }>(
        "/api/v1/phone/suppressions",
        json({ phones: [number, "nonsense"] }, { Authorization: `Bearer ${acct.key}` }),
      );
      expect([added.status, added.body.data]).toEqual([201, { added: 1, invalid: ["nonsense"], test_values: [] }]);
      const listed = await call<{ suppressions: { phone: string; source: string }[] }>(
        "/api/v1/phone/suppressions",
        bearer(acct.key),
      );
      expect(listed.body.data.suppressions).toMatchObject([{ phone: number, source: "manual" }]);
      const { body } = await batch(acct.key, [number]);
      expect(body.data.results[0]).toMatchObject({
        data: { e164: number, valid: true, reason: "suppressed" },
        meta: { credits_used: 0, suppressed: true },
      });
      const single = await call("/api/v1/phone", json({ phone: number }, { Authorization: `Bearer ${acct.key}` }));
      expect(single.body.meta).toMatchObject({ credits_used: 1, suppressed: false });
      // The sample tables gave its carrier: the answer says so (docs/phone.md, `sample_data`).
      expect(single.body.data).toMatchObject({ reason: "sample_data" });
    },
  );

  it("keeps every answer but test numbers in history, filterable by status", async () => {
    const acct = await createAccount({ pack: 5 });
    const number = ukMobile();
    await batch(acct.key, [number, "+44 20", TEST_PHONE_NUMBERS[0]]);
    const { body } = await call<{ lookups: Record<string, unknown>[] }>("/api/v1/phone/history", bearer(acct.key));
    expect(body.data.lookups.map((l) => [l.phone, l.e164, l.status, l.reason, l.credits_used])).toEqual(
      [
        [number, number, "valid", "sample_data", 1],
        ["+4420", "+4420", "invalid", "invalid_number", 0],
      ].reverse(),
    );
    const invalid = await call<{ lookups: unknown[] }>("/api/v1/phone/history?status=invalid", bearer(acct.key));
    expect(invalid.body.data.lookups).toHaveLength(1);
  });
});

describe("test numbers", () => {
  it(
    "answers each canonically, free and with no dataset, in every spelling, and keeps them out of " + "history",
    async () => {
      const acct = await createAccount();
      const { status, body } = await batch(acct.key, [...TEST_PHONE_NUMBERS, { phone: "07700 900002", country: "GB" }]);
      expect(status).toBe(200);
      expect(
        body.data.results.map((r) => [
          r.data.valid,
          r.data.line_type,
          r.data.reason,
          r.data.risk_score,
          r.meta.credits_used,
        ]),
      ).toEqual([
        [true, "mobile", null, 0, 0],
        [true, "fixed_line", null, 0, 0],
        [true, "voip", null, 30, 0],
        [true, "premium_rate", "premium_rate", 60, 0],
        [true, "mobile", "disposable", 80, 0],
        [false, "unknown", "invalid_number", 100, 0],
        [true, "voip", null, 30, 0],
      ]);
      expect(
        body.data.results.every((r) => (r.data.sources as { dataset: string }[])[0]!.dataset === "phone-test-numbers"),
      ).toBe(true);
      const history = await call<{ lookups: unknown[] }>("/api/v1/phone/history", bearer(acct.key));
      expect(history.body.data.lookups).toEqual([]);
    },
  );

  it("are the sandbox key's phone samples: other numbers answer SANDBOX_VALUE_NOT_ALLOWED", async () => {
    const sandbox = (body: unknown, path = "/api/v1/phone") =>
      call(path, json(body, { Authorization: `Bearer ${SANDBOX_KEY}`, "CF-Connecting-IP": "192.0.2.77" }));
    await admin("PUT", "/sandbox", { enabled: true });
    const sample = await sandbox({ phone: "+44 7700 900000" });
    expect([sample.status, sample.body.data.reason, sample.body.meta.credits_used]).toEqual([200, null, 0]);
    expect((await sandbox({ phones: TEST_PHONE_NUMBERS }, "/api/v1/phone/batch")).status).toBe(200);
    const other = await sandbox({ phone: ukMobile() });
    expect([other.status, other.body.error.code]).toEqual([403, "SANDBOX_VALUE_NOT_ALLOWED"]);
  });
});

describe("POST /api/v1/phone/public", () => {
  async function publishable() {
    const acct = await createAccount({ pack: 3 });
    const created = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      allowed_domains: ["shop.example"],
    });
    return { ...acct, pk: created.key };
  }
  const browser = (body: Record<string, unknown>, origin?: string) =>
    call("/api/v1/phone/public", json(body, origin ? { Origin: origin } : {}));

  it("answers from an allowed Origin without meta, billing the key's account", async () => {
    const { pk, accountId } = await publishable();
    const { status, body } = await browser({ key: pk, phone: "07400 123456", country: "GB" }, "https://shop.example");
    expect(status).toBe(200);
    expect(body).not.toHaveProperty("meta");
    expect(body.data).toMatchObject({
      valid: true,
      e164: "+447400123456",
      network_checked: false,
      network_status: null,
    });
    const account = await admin<{ balance: { total: number } }>("GET", `/accounts/${accountId}`);
    expect(account.balance.total).toBe(2);
  });

  it("refuses a missing or foreign Origin and an unknown key before any credit", async () => {
    const { pk, accountId } = await publishable();
    expect((await browser({ key: pk, phone: ukMobile() })).body.error.code).toBe("ORIGIN_NOT_ALLOWED");
    expect((await browser({ key: pk, phone: ukMobile() }, "https://evil.example")).body.error.code).toBe(
      "ORIGIN_NOT_ALLOWED",
    );
    expect((await browser({ key: "pk_unknown", phone: ukMobile() }, "https://shop.example")).body.error.code).toBe(
      "INVALID_PUBLISHABLE_KEY",
    );
    expect((await admin<{ balance: { total: number } }>("GET", `/accounts/${accountId}`)).balance.total).toBe(3);
  });
});
