/**
 * POST /api/v1/address/batch and /address/public, the sandbox and the suppression list (docs/address.md): the list's
 * `country`, item errors, the walk's stop and 402, suppressed addresses answered free, and the browser endpoint.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, anotherKey, call, createAccount, json } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

const post = (path: string, body: unknown, key: string, headers: Record<string, string> = {}) =>
  call<Record<string, any>>(path, json(body, { Authorization: `Bearer ${key}`, ...headers }));

const SPRINGFIELD = { line1: "1 Main St", locality: "Springfield", region: "IL", postcode: "62701", country: "US" };
const BEVERLY = "9355 Burton Way, Beverly Hills, CA 90210";
const WASHINGTON = "1600 Pennsylvania Ave NW, Washington, DC 20500";

describe("POST /address/batch", () => {
  it("answers in order with the list's country for items that name none; bills verified ones only", async () => {
    const acct = await createAccount({ pack: 10 });
    const { status, body } = await post(
      "/api/v1/address/batch",
      {
        country: "US",
        addresses: [
          SPRINGFIELD,
          BEVERLY,
          { address: "10117 Berlin", country: "DE" },
          "1 Main St, Chicago, IL 62701",
          BEVERLY,
        ],
      },
      acct.key,
    );
    expect(status).toBe(200);
    const results = body.data.results as {
      index: number;
      input: unknown;
      data: Record<string, any>;
      meta: Record<string, unknown>;
    }[];
    expect(
      results.map((r) => [r.index, r.data.verification, r.data.reason, r.meta.credits_used, r.meta.cache_hit]),
    ).toEqual([
      [0, "verified", null, 1, false],
      [1, "verified", null, 1, false],
      [2, "invalid", "missing_components", 0, false],
      [3, "invalid", "locality_mismatch", 0, false],
      [4, "verified", null, 0, true],
    ]);
    expect(results[1]!.input).toEqual({ address: BEVERLY, country: "US" });
    expect(results[2]!.data.address).toMatchObject({
      country: "DE",
      postcode: "10117",
      locality: "Berlin",
      line1: null,
    });
    expect(body.meta).toMatchObject({
      requested: 5,
      processed: 5,
      credits_used: 2,
      credits_remaining: 8,
      stopped_reason: null,
    });
  });

  it("names each item without a country in a 422, and runs nothing", async () => {
    const acct = await createAccount({ pack: 10 });
    const { status, body } = await post(
      "/api/v1/address/batch",
      { addresses: [SPRINGFIELD, BEVERLY, { line1: "x" }] },
      acct.key,
    );
    expect([status, body.error.code, Object.keys(body.error.errors!)]).toEqual([
      422,
      "VALIDATION_FAILED",
      ["addresses.1", "addresses.2"],
    ]);
    expect(await post("/api/v1/address/batch", { addresses: [] }, acct.key)).toMatchObject({ status: 422 });
    expect(
      await post("/api/v1/address/batch", { country: "US", addresses: Array(101).fill(BEVERLY) }, acct.key),
    ).toMatchObject({ status: 422 });
  });

  it("stops where credits run out with insufficient_credits; 402 when the first is refused", async () => {
    const acct = await createAccount({ pack: 1 });
    const { body } = await post(
      "/api/v1/address/batch",
      { country: "US", addresses: [BEVERLY, WASHINGTON, SPRINGFIELD] },
      acct.key,
    );
    expect(body.meta).toMatchObject({
      requested: 3,
      processed: 1,
      credits_used: 1,
      credits_remaining: 0,
      stopped_reason: "insufficient_credits",
    });
    const refused = await post(
      "/api/v1/address/batch",
      { country: "US", addresses: [WASHINGTON] },
      await anotherKey(acct),
    );
    expect([refused.status, refused.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
  });
});

describe("suppressions", () => {
  it(
    "answers a suppressed address free in a batch with reason suppressed; a single lookup ignores the " + "list",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const added = await post(
        "/api/v1/address/suppressions",
        { addresses: [{ address: BEVERLY, country: "US" }], reason: "returned_mail" },
        acct.key,
      );
      expect([added.status, added.body.data]).toEqual([201, { added: 1, invalid: [], test_values: [] }]);
      const listed = await call<Record<string, any>>("/api/v1/address/suppressions", {
        headers: { Authorization: `Bearer ${acct.key}` },
      });
      expect(listed.body.data.suppressions).toEqual([
        expect.objectContaining({
          address: "US|90210|BEVERLY HILLS|CA|9355 BURTON WAY|",
          reason: "returned_mail",
          source: "manual",
        }),
      ]);
      const batch = await post(
        "/api/v1/address/batch",
        {
          addresses: [
            { line1: "9355 Burton Way", locality: "beverly hills", region: "ca", postcode: "90210", country: "us" },
          ],
        },
        await anotherKey(acct),
      );
      expect(batch.body.data.results[0]).toMatchObject({
        data: { valid: false, reason: "suppressed", risk_score: 100 },
        meta: { credits_used: 0, suppressed: true },
      });
      const single = await post("/api/v1/address", { address: BEVERLY, country: "US" }, await anotherKey(acct));
      expect(single.body).toMatchObject({
        data: { verification: "verified" },
        meta: { credits_used: 1, suppressed: false },
      });
    },
  );
});

describe("sandbox and browser", () => {
  it("lets the sandbox key look up test addresses only", async () => {
    const ok = await post(
      "/api/v1/address",
      { address: { line1: "verified", country: "ZZ" } },
      "sk_test_public_sandbox",
      { "CF-Connecting-IP": "192.0.2.40" },
    );
    expect(ok.body).toMatchObject({ data: { verification: "verified", country: "ZZ" }, meta: { credits_used: 0 } });
    const refused = await post("/api/v1/address", { address: SPRINGFIELD }, "sk_test_public_sandbox", {
      "CF-Connecting-IP": "192.0.2.40",
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, "SANDBOX_VALUE_NOT_ALLOWED"]);
  });

  it("answers POST /address/public with a publishable key from an allowed Origin, without meta", async () => {
    const acct = await createAccount({ pack: 5 });
    const pk = await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/publishable`, {
      user_id: acct.userId,
      allowed_domains: ["shop.example"],
    });
    const lookup = (origin: string) =>
      call<Record<string, any>>(
        "/api/v1/address/public",
        json({ key: pk.key, address: WASHINGTON, country: "US" }, { Origin: origin }),
      );
    const { status, body } = await lookup("https://shop.example");
    expect([status, body.data.verification, body.meta]).toEqual([200, "verified", undefined]);
    const elsewhere = await lookup("https://evil.example");
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
  });
});
