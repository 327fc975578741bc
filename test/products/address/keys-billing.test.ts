/**
 * Address keys over HTTP (docs/address.md, "Address keys", and the Billing section): a repeat written with another
 * street suffix, unit designator or punctuation is a free repeat (`credits_used: 0`, `cache_hit: true`); `12 Elm Saint`
 * is not `12 Elm St`; a suppression, batch and bulk dedupe, and delivery feedback fold addresses the same way.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anotherKey, bearer, call, createAccount, json } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

type Meta = { credits_used: number; credits_remaining?: number; cache_hit: boolean; suppressed: boolean };
type Item = { index: number; data: Record<string, unknown>; meta: Meta };

const post = <T = Record<string, any>>(path: string, body: unknown, key: string) =>
  call<T>(path, json(body, { Authorization: `Bearer ${key}` }));
const lookup = (key: string, line1: string) =>
  post<Record<string, any>>(
    "/api/v1/address",
    { address: { line1, locality: "New York", region: "NY", postcode: "10001", country: "US" } },
    key,
  );
const oneLine = (line1: string) => ({ address: `${line1}, New York, NY 10001`, country: "US" });

describe("repeats", () => {
  it("answers 350 Fifth Avenue after 350 Fifth Ave as a free repeat", async () => {
    const acct = await createAccount({ pack: 10 });
    const first = await lookup(acct.key, "350 Fifth Ave");
    expect([first.status, first.body.data.verification]).toEqual([200, "verified"]);
    expect(first.body.meta).toMatchObject({
      credits_used: 1,
      credits_remaining: 9,
      cache_hit: false,
      suppressed: false,
    });
    const again = await lookup(await anotherKey(acct), "350 Fifth Avenue");
    expect([again.status, again.body.data.verification, again.body.data.address.line1]).toEqual([
      200,
      "verified",
      "350 Fifth Avenue",
    ]);
    expect(again.body.meta).toMatchObject({
      credits_used: 0,
      credits_remaining: 9,
      cache_hit: true,
      suppressed: false,
    });
  });

  it("bills 12 Elm Saint after 12 Elm St: Saint is no street suffix", async () => {
    const acct = await createAccount({ pack: 10 });
    expect((await lookup(acct.key, "12 Elm St")).body.meta).toMatchObject({
      credits_used: 1,
      credits_remaining: 9,
      cache_hit: false,
    });
    const saint = await lookup(await anotherKey(acct), "12 Elm Saint");
    expect([saint.status, saint.body.data.verification]).toEqual([200, "verified"]);
    expect(saint.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 8, cache_hit: false });
    const street = await lookup(await anotherKey(acct), "12 ELM STREET");
    expect(street.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 8, cache_hit: true });
  });
});

describe("suppressions", () => {
  it(
    "suppressing 12 Main St covers 12 Main Street and 12 MAIN ST. in a batch; DELETE by another spelling lifts " + "it",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const added = await post("/api/v1/address/suppressions", { addresses: [oneLine("12 Main St")] }, acct.key);
      expect([added.status, added.body.data.added]).toEqual([201, 1]);
      const listed = await call<Record<string, any>>(
        `/api/v1/address/suppressions?address=${encodeURIComponent("US|10001|NEW YORK|NY|12 MAIN STREET|")}`,
        bearer(await anotherKey(acct)),
      );
      expect(listed.body.data.suppressions.map((s: { address: string }) => s.address)).toEqual([
        "US|10001|NEW YORK|NY|12 MAIN STREET|",
      ]);

      const batch = await post<{ results: Item[] }>(
        "/api/v1/address/batch",
        { country: "US", addresses: [oneLine("12 Main Street"), oneLine("12 MAIN ST."), oneLine("12 Main Saint")] },
        await anotherKey(acct),
      );
      expect(batch.body.data.results.map((r) => [r.data.reason, r.meta.credits_used, r.meta.suppressed])).toEqual([
        ["suppressed", 0, true],
        ["suppressed", 0, true],
        [null, 1, false],
      ]);

      const removed = await call<Record<string, any>>(
        "/api/v1/address/suppressions",
        json(
          { addresses: [oneLine("12 main street")] },
          { Authorization: `Bearer ${await anotherKey(acct)}` },
          "DELETE",
        ),
      );
      expect(removed.body.data).toEqual({ removed: 1 });
    },
  );

  it("suppresses 12 Main Street when delivery feedback returned mail for 12 Main St", async () => {
    const acct = await createAccount({ pack: 10 });
    const received = await post(
      "/api/v1/address/feedback",
      { events: [{ address: oneLine("12 Main St Apt 4"), outcome: "returned" }] },
      acct.key,
    );
    expect(received.body.data).toEqual({ recorded: 1, suppressed: 1, invalid: [] });
    const batch = await post<{ results: Item[] }>(
      "/api/v1/address/batch",
      {
        addresses: [
          {
            line1: "12 Main Street",
            line2: "Apartment 4",
            locality: "new york",
            region: "ny",
            postcode: "10001",
            country: "us",
          },
        ],
      },
      await anotherKey(acct),
    );
    expect(batch.body.data.results[0]).toMatchObject({
      data: { reason: "returned", deliverable: false },
      meta: { credits_used: 0, suppressed: true },
    });
  });
});

describe("dedupe", () => {
  it("answers spellings of one address once in a batch, billed once", async () => {
    const acct = await createAccount({ pack: 10 });
    const { status, body } = await post<{ results: Item[] }>(
      "/api/v1/address/batch",
      {
        addresses: [
          oneLine("350 Fifth Ave"),
          oneLine("350 Fifth Avenue"),
          oneLine("350 FIFTH AVE."),
          oneLine("12 Elm St #4"),
          oneLine("12 Elm Street, Unit 4"),
          oneLine("12 Elm Saint #4"),
        ],
      },
      acct.key,
    );
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.index, r.data.verification, r.meta.credits_used, r.meta.cache_hit])).toEqual(
      [
        [0, "verified", 1, false],
        [1, "verified", 0, true],
        [2, "verified", 0, true],
        [3, "verified", 1, false],
        [4, "verified", 0, true],
        [5, "verified", 1, false],
      ],
    );
    expect((body as unknown as { meta: Record<string, unknown> }).meta).toMatchObject({
      requested: 6,
      processed: 6,
      credits_used: 3,
      credits_remaining: 7,
    });
  });

  it("counts spellings of one address as duplicates of a bulk run", async () => {
    const acct = await createAccount({ pack: 10 });
    const rows = [
      oneLine("350 Fifth Ave"),
      oneLine("350 Fifth Avenue"),
      oneLine("12 Main St"),
      oneLine("12 MAIN STREET"),
      oneLine("12 Main Saint"),
    ];
    const { status, body } = await post<{ job: Record<string, unknown> }>(
      "/api/v1/address/bulk",
      { addresses: rows },
      acct.key,
    );
    expect(status).toBe(202);
    expect(body.data.job).toMatchObject({ total: 5, duplicate_count: 2 });
  });
});
