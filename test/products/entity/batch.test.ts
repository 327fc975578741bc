import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { walk } from "../../../src/engines/walk/walk";
import type { EntityItem } from "../../../src/products/entity/lookup";
import { entity } from "../../../src/products/entity/product";
import type { EntityResult } from "../../../src/products/entity/result";
import { accountRows, admin, anotherKey, call, createAccount, accountObject, json } from "../../helpers";
import { installSample, installSamples, LEI, makeLei, UNKNOWN_LEI } from "../../entity-samples";

interface BatchItem {
  index: number;
  input: unknown;
  data: EntityResult;
  meta: { credits_used: number; cache_hit: boolean };
}

const batch = (key: string, identifiers: unknown) =>
  call<{ results: BatchItem[] }>("/api/v1/entity/batch", json({ identifiers }, { Authorization: `Bearer ${key}` }));

const GB = (identifier: string) => ({ identifier, type: "company_number", country: "GB" });

beforeAll(installSamples);

describe("POST /api/v1/entity/batch", () => {
  it("answers in input order with index and input as sent, billing 1 per identifier a register carried", async () => {
    const acct = await createAccount({ pack: 10 });
    const identifiers = [
      LEI.widgets,
      UNKNOWN_LEI,
      "not an lei",
      { identifier: "sc990001", type: "company_number", country: "gb" },
      { identifier: "HRB 1", type: "company_number", country: "DE" },
      { identifier: LEI.german, type: "lei" },
      `${LEI.energy.slice(0, 18)}99`,
    ];
    const { status, body } = await batch(acct.key, identifiers);
    expect(status).toBe(200);
    expect(body.data.results.map((r) => [r.index, r.input])).toEqual(identifiers.map((input, i) => [i, input]));
    expect(body.data.results.map((r) => [r.data.found, r.data.reason, r.meta.credits_used])).toEqual([
      [true, null, 1],
      [false, "unknown_identifier", 0],
      // Not 20 letters or digits: never read as an LEI, and no UK number either.
      [false, "invalid_identifier", 0],
      [true, null, 1],
      [false, "unsupported_register", 0],
      [true, null, 1],
      [false, "unknown_identifier", 0],
    ]);
    expect(body.data.results[3]!.data.identifier).toBe("SC990001");
    expect(Object.keys(body.meta).sort()).toEqual([
      "credits_remaining",
      "credits_used",
      "found",
      "processed",
      "request_id",
      "requested",
      "stopped_reason",
    ]);
    expect(body.meta).toMatchObject({
      requested: 7,
      processed: 7,
      found: 3,
      credits_used: 3,
      credits_remaining: 7,
      stopped_reason: null,
    });
  });

  it("bills a repeat within the list once, whatever its spelling", async () => {
    const acct = await createAccount({ pack: 10 });
    const { body } = await batch(acct.key, [
      LEI.holdings,
      ` ${LEI.holdings.toLowerCase()}`,
      GB("9900002"),
      GB("09900002"),
    ]);
    expect(body.data.results.map((r) => [r.meta.credits_used, r.meta.cache_hit])).toEqual([
      [1, false],
      [0, true],
      [1, false],
      [0, true],
    ]);
    expect(body.meta).toMatchObject({ found: 4, credits_used: 2 });
  });

  it("answers 7-day repeats free with cache_hit, and bills again once the window has passed", async () => {
    const acct = await createAccount({ pack: 10 });
    await batch(acct.key, [LEI.scottish, GB("09900014")]);
    const again = await batch(acct.key, [LEI.scottish, GB("09900014"), LEI.retail]);
    expect(again.body.data.results.map((r) => [r.meta.credits_used, r.meta.cache_hit])).toEqual([
      [0, true],
      [0, true],
      [1, false],
    ]);
    expect(again.body.meta).toMatchObject({ found: 3, credits_used: 1, credits_remaining: 7 });
    const markers = await accountRows<{ key: string }>(
      acct.accountId,
      "SELECT key FROM repeats WHERE product = 'entity' ORDER BY key",
    );
    expect(markers.map((m) => m.key)).toEqual([
      `company_number:GB:09900014`,
      `lei:${LEI.retail}`,
      `lei:${LEI.scottish}`,
    ]);
    await accountRows(acct.accountId, "UPDATE repeats SET created_at = ?", Date.now() - 8 * 86_400_000);
    const later = await batch(acct.key, [LEI.scottish]);
    expect(later.body.data.results[0]!.meta).toEqual({ credits_used: 1, cache_hit: false });
  });

  it("walks in order and stops exactly where credits run out, returning what was answered", async () => {
    const acct = await createAccount({ pack: 2 });
    const identifiers = [LEI.widgets, UNKNOWN_LEI, LEI.holdings, "bad", LEI.german, LEI.energy];
    const { status, body } = await batch(acct.key, identifiers);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({
      requested: 6,
      processed: 4,
      found: 2,
      credits_used: 2,
      credits_remaining: 0,
      stopped_reason: "insufficient_credits",
    });
    expect(body.data.results.map((r) => r.input)).toEqual(identifiers.slice(0, 4));
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(0);
  });

  it(
    "answers free identifiers with no credits at all, and 402 only when the first identifier is a refused paid " +
      "one",
    async () => {
      const acct = await createAccount({ pack: 0 });
      const free = await batch(acct.key, [
        UNKNOWN_LEI,
        "bad",
        GB("00000000"),
        { identifier: "1", type: "company_number", country: "FR" },
      ]);
      expect(free.status).toBe(200);
      expect(free.body.meta).toMatchObject({ processed: 4, found: 0, credits_used: 0, stopped_reason: null });
      const refused = await batch(acct.key, [LEI.widgets, UNKNOWN_LEI]);
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe("INSUFFICIENT_CREDITS");
      const partial = await batch(acct.key, [UNKNOWN_LEI, LEI.widgets, "bad"]);
      expect(partial.status).toBe(200);
      expect(partial.body.meta).toMatchObject({
        requested: 3,
        processed: 1,
        credits_used: 0,
        stopped_reason: "insufficient_credits",
      });
    },
  );

  it(
    "stops with key_spend_cap at the key's daily cap, and answers 429 when the cap is spent at the " + "start",
    async () => {
      const acct = await createAccount({ pack: 10, key: { daily_credit_cap: 2 } });
      const first = await batch(acct.key, [LEI.widgets, LEI.holdings, LEI.energy]);
      expect(first.body.meta).toMatchObject({ processed: 2, credits_used: 2, stopped_reason: "key_spend_cap" });
      const repeatsStillFree = await batch(acct.key, [LEI.widgets, UNKNOWN_LEI]);
      expect(repeatsStillFree.status).toBe(200);
      expect(repeatsStillFree.body.meta).toMatchObject({ processed: 2, credits_used: 0, stopped_reason: null });
      const capped = await batch(acct.key, [LEI.energy]);
      expect(capped.status).toBe(429);
      expect(capped.body.error.code).toBe("KEY_SPEND_CAP_REACHED");
      expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
    },
  );

  it("validates the list: 1 to 500 items, errors keyed by dotted path into the item", async () => {
    const acct = await createAccount({ pack: 1 });
    const key2 = await anotherKey(acct);
    const errorsOf = async (key: string, identifiers: unknown) => {
      const { status, body } = await batch(key, identifiers);
      expect(status).toBe(422);
      return Object.keys(body.error.errors!);
    };
    expect(
      await errorsOf(acct.key, [
        LEI.widgets,
        LEI.widgets,
        LEI.widgets,
        { identifier: "09900001", type: "company_number" },
      ]),
    ).toEqual(["identifiers.3.country"]);
    expect(await errorsOf(acct.key, ["X".repeat(65), { identifier: "X".repeat(65) }, { identifier: 5 }])).toEqual([
      "identifiers.0",
      "identifiers.1.identifier",
      "identifiers.2.identifier",
    ]);
    expect(
      await errorsOf(acct.key, [
        { identifier: "1", type: "duns" },
        { identifier: "1", type: "company_number", country: "GBR" },
        42,
        null,
      ]),
    ).toEqual(["identifiers.0.type", "identifiers.1.country", "identifiers.2", "identifiers.3"]);
    expect(await errorsOf(key2, [])).toEqual(["identifiers"]);
    expect(
      await errorsOf(
        key2,
        Array.from({ length: 501 }, () => UNKNOWN_LEI),
      ),
    ).toEqual(["identifiers"]);
    expect(await errorsOf(key2, "SMPL")).toEqual(["identifiers"]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(1);
  });

  it("answers 500 identifiers in one call, counted as one request for rate limiting", async () => {
    const acct = await createAccount({ pack: 1_000 });
    const identifiers = Array.from({ length: 500 }, (_, i) =>
      i % 2 ? LEI.software : makeLei(`SMPL00MISS${String(i).padStart(8, "0")}`),
    );
    const responses = await Promise.all(Array.from({ length: 5 }, () => batch(acct.key, identifiers)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const { body } of responses) expect(body.meta).toMatchObject({ requested: 500, processed: 500, found: 250 });
    const charged = responses.reduce((n, r) => n + (r.body.meta.credits_used as number), 0);
    expect(charged).toBeGreaterThanOrEqual(1); // concurrent first lookups of the same LEI may each bill once
    expect(charged).toBeLessThanOrEqual(5);
  });

  it("is not open to the sandbox key", async () => {
    await admin("PUT", "/sandbox", { enabled: true });
    const { status, body } = await batch("sk_test_public_sandbox", [LEI.widgets]);
    expect(status).toBe(403);
    expect(body.error.code).toBe("SANDBOX_ENDPOINT_NOT_ALLOWED");
  });
});

describe("registers not installed", () => {
  it(
    "answers register_not_installed free, drops the flag that needs the missing register, and recovers on " +
      "reinstall",
    async () => {
      const acct = await createAccount({ pack: 10 });
      const removed = await admin<{ deleted: number; done: boolean }>("DELETE", "/registers/uk-companies-house");
      expect(removed).toMatchObject({ deleted: 36, done: true });
      const without = await batch(acct.key, [GB("09900001"), LEI.dissolved]);
      expect(
        without.body.data.results.map((r) => [r.data.found, r.data.reason, r.meta.credits_used, r.data.flags]),
      ).toEqual([
        [false, "register_not_installed", 0, []],
        [true, null, 1, []],
      ]);
      await installSample("uk-companies-house");
      const back = await batch(acct.key, [GB("09900001"), LEI.dissolved]);
      expect(back.body.data.results.map((r) => [r.data.found, r.data.flags])).toEqual([
        [true, []],
        [true, ["dissolved_in_national_register"]],
      ]);

      await admin("DELETE", "/registers/gleif-lei");
      const noLei = await batch(acct.key, [LEI.widgets, "garbage"]);
      expect(noLei.body.data.results.map((r) => [r.data.reason, r.data.checksum_valid, r.meta.credits_used])).toEqual([
        ["register_not_installed", true, 0],
        ["invalid_identifier", null, 0],
      ]);
      await installSample("gleif-lei");
    },
  );
});

const OPTIONS = { refresh: false, maxAgeSeconds: null, honorSuppressions: true, extra: {} };
const lookupEntities = (
  payer: { accountId: string; keyId: null; dailyCreditCap: null } | null,
  inputs: EntityItem[],
  requestId = "entity-test",
) => walk(entity, { env, payer, requestId, inputs, options: OPTIONS });

describe("the paid walk over entity (as monitors use it)", () => {
  it("answers without billing when there is no payer, and bills a payer like the batch does", async () => {
    const free = await lookupEntities(null, [
      LEI.widgets,
      { identifier: "09900006", type: "company_number", country: "GB" },
    ]);
    expect(free).toMatchObject({
      requested: 2,
      processed: 2,
      creditsUsed: 0,
      creditsRemaining: 0,
      stoppedReason: null,
      refused: null,
    });
    expect(free.items.filter((i) => i.data.found)).toHaveLength(2);
    expect(free.items[1]!.data.status).toBe("dissolved");

    const acct = await createAccount({ pack: 1 });
    const payer = { accountId: acct.accountId, keyId: null, dailyCreditCap: null };
    const run = await lookupEntities(payer, [LEI.widgets, LEI.holdings], "monitor-run-1");
    expect(run).toMatchObject({
      processed: 1,
      creditsUsed: 1,
      creditsRemaining: 0,
      stoppedReason: "insufficient_credits",
    });
    const refused = await lookupEntities(payer, [LEI.holdings]);
    expect(refused).toMatchObject({ refused: "insufficient_credits", processed: 0, creditsUsed: 0, items: [] });
  });
});
