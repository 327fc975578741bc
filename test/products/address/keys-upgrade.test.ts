/**
 * Repeat markers and suppressions written under the old address key (migrations/0012_address_keys.sql,
 * src/engines/rekey.ts): rows as the previous release wrote them (keys folded with the place-name table, no
 * key_version) keep working after the upgrade. They are re-keyed from their stored answers the first time the
 * account's rows are read: a batch, a single lookup's repeat check, or a suppression-list call.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { manualSuppression, feedbackSuppression } from "../../../src/products/address/suppressed";
import type { AddressInput } from "../../../src/products/address/result";
import { accountRows, anotherKey, bearer, call, createAccount, json } from "../../helpers";
import { installAddressData } from "../../address-samples";

beforeAll(() => installAddressData());

const NY = (line1: string): AddressInput => ({ address: `${line1}, New York, NY 10001`, country: "US" });
const DAY = 86_400_000;

/** A row exactly as the previous release inserted it: no key_version column in its statement. */
const oldSuppression = (accountId: string, key: string, input: AddressInput, source: "manual" | "feedback") =>
  env.DB.prepare(
    "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) VALUES (?, 'address', " +
      "?, ?, ?, ?, ?)",
  ).bind(
    accountId,
    key,
    source === "manual" ? "manual" : "returned",
    source,
    JSON.stringify(
      source === "manual" ? manualSuppression(input) : feedbackSuppression(input, "returned", Date.now() - DAY),
    ),
    Date.now() - DAY,
  );
const oldRepeat = (accountId: string, key: string, input: AddressInput, at: number) =>
  env.DB.prepare(
    "INSERT INTO repeats (account_id, product, key, result, created_at) VALUES (?, 'address', ?, ?, ?)",
  ).bind(accountId, key, JSON.stringify(manualSuppression(input)), at);

// Old rows go into D1 (as the previous release wrote them); the account's object moves them in on its first use of
// its lists and re-keys them there, so they are read back from the object.
const rows = (table: string, accountId: string) =>
  accountRows(accountId, `SELECT key, key_version FROM ${table} ORDER BY key`);

type Item = { data: Record<string, unknown>; meta: { credits_used: number; cache_hit: boolean; suppressed: boolean } };

describe("after the upgrade", () => {
  it("still suppresses addresses suppressed under the old key, in every spelling, and re-keys them once", async () => {
    const acct = await createAccount({ pack: 10 });
    await env.DB.batch([
      oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|12 MAIN SAINT|", NY("12 Main St"), "manual"),
      oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|5 OAK CT|", NY("5 Oak Ct"), "feedback"),
      // Two old entries that are one address under the new key: one stays.
      oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|5 OAK COURT|", NY("5 Oak Court"), "manual"),
    ]);
    const batch = await call<{ results: Item[] }>(
      "/api/v1/address/batch",
      json(
        { addresses: [NY("12 Main Street"), NY("12 MAIN ST."), NY("5 Oak Court"), NY("12 Main Saint")] },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect(batch.body.data.results.map((r) => [r.data.reason, r.meta.credits_used, r.meta.suppressed])).toEqual([
      ["suppressed", 0, true],
      ["suppressed", 0, true],
      [expect.stringMatching(/^(suppressed|returned)$/), 0, true],
      [null, 1, false],
    ]);
    expect(await rows("suppressions", acct.accountId)).toEqual([
      { key: "US|10001|NEW YORK|NY|12 MAIN STREET|", key_version: 2 },
      { key: "US|10001|NEW YORK|NY|5 OAK COURT|", key_version: 2 },
    ]);
  });

  it("re-keys the list before a suppressions call reads or changes it by key", async () => {
    const acct = await createAccount({ pack: 10 });
    await oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|8 ST MARKS PL|", NY("8 St Marks Pl"), "manual").run();
    await env.DB.prepare("UPDATE suppressions SET key = 'US|10001|NEW YORK|NY|8 SAINT MARKS PL|' WHERE account_id = ?")
      .bind(acct.accountId)
      .run();
    const listed = await call<Record<string, any>>("/api/v1/address/suppressions", bearer(acct.key));
    expect(listed.body.data.suppressions.map((s: { address: string }) => s.address)).toEqual([
      "US|10001|NEW YORK|NY|8 SAINT MARKS PLACE|",
    ]);
    const again = await call<Record<string, any>>(
      "/api/v1/address/suppressions",
      json({ addresses: [NY("8 Saint Marks Place")] }, { Authorization: `Bearer ${await anotherKey(acct)}` }),
    );
    expect(again.body.data.added).toBe(0);
    const removed = await call<Record<string, any>>(
      "/api/v1/address/suppressions",
      json({ addresses: [NY("8 st. marks pl")] }, { Authorization: `Bearer ${await anotherKey(acct)}` }, "DELETE"),
    );
    expect(removed.body.data).toEqual({ removed: 1 });
  });

  it("answers a repeat marker written under the old key as a free repeat inside the window", async () => {
    const acct = await createAccount({ pack: 10 });
    await env.DB.batch([
      oldRepeat(acct.accountId, "US|10001|NEW YORK|NY|350 FIFTH AVE|", NY("350 Fifth Ave"), Date.now() - DAY),
      oldRepeat(acct.accountId, "US|10001|NEW YORK|NY|9 OLD RD|", NY("9 Old Rd"), Date.now() - 8 * DAY),
    ]);
    const repeat = await call<Record<string, any>>(
      "/api/v1/address",
      json(
        {
          address: { line1: "350 Fifth Avenue", locality: "New York", region: "NY", postcode: "10001", country: "US" },
        },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect(repeat.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 10, cache_hit: true });
    const expired = await call<Record<string, any>>(
      "/api/v1/address",
      json({ address: NY("9 Old Road") }, { Authorization: `Bearer ${await anotherKey(acct)}` }),
    );
    expect(expired.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 9, cache_hit: false });
    // The expired old marker answers nothing and is not re-keyed; the account's object prunes it on first use.
    expect(await rows("repeats", acct.accountId)).toEqual([
      { key: "US|10001|NEW YORK|NY|350 FIFTH AVENUE|", key_version: 2 },
      { key: "US|10001|NEW YORK|NY|9 OLD ROAD|", key_version: 2 },
    ]);
  });

  it("re-keys rows in one batch even when one row's old key is another's new key", async () => {
    const acct = await createAccount({ pack: 10 });
    // The old key of the 12 Main St entry is the new key of the 350 Fifth Ave entry, and the other way round.
    await env.DB.batch([
      oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|350 FIFTH AVENUE|", NY("12 Main St"), "manual"),
      oldSuppression(acct.accountId, "US|10001|NEW YORK|NY|12 MAIN STREET|", NY("350 Fifth Ave"), "feedback"),
    ]);
    const batch = await call<{ results: Item[] }>(
      "/api/v1/address/batch",
      json({ addresses: [NY("12 Main St"), NY("350 Fifth Avenue")] }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(batch.body.data.results.map((r) => [r.data.reason, r.meta.suppressed])).toEqual([
      ["suppressed", true],
      ["returned", true],
    ]);
    expect(await rows("suppressions", acct.accountId)).toEqual([
      { key: "US|10001|NEW YORK|NY|12 MAIN STREET|", key_version: 2 },
      { key: "US|10001|NEW YORK|NY|350 FIFTH AVENUE|", key_version: 2 },
    ]);
  });
});
