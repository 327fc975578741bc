/**
 * The paid walk's rules, once per product (spec "POST /api/v1/email/batch" rules 1-7, "Billing", "Limits"; products.md
 * "Shared by every product"): dedupe, free local answers, the 7-day repeat window, refresh, suppressions,
 * walk-and-stop, refusal, the key's daily cap, release on failure and the ledger.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { addSuppressions } from "../../src/engines/lists/suppressions";
import { accountRows, call, accountObject, json } from "../helpers";
import type { Product } from "../../src/engines/product";
import {
  countRows,
  DAY_MS,
  funded,
  ledgerCharges,
  rand,
  setUp,
  spied,
  SUBJECTS,
  subjectsWith,
  walkOf,
} from "./helpers";

beforeAll(() => setUp(SUBJECTS));

// Repeat markers live in the account's object (its lists).
const backdateRepeats = (accountId: string, product: string, ms: number) =>
  accountRows(accountId, "UPDATE repeats SET created_at = ? WHERE product = ?", Date.now() - ms, product);

describe.each(SUBJECTS)("the paid walk: $label", ({ product, samples, registered, unitsPerCredit }) => {
  it("looks a repeat within the list up once; its copies cost 0 with cache_hit true", async () => {
    const acct = await funded(10);
    const [a, b] = samples.paid(2);
    const spy = spied(product);
    const run = await walkOf(spy.product, acct.payer, [a, samples.respell(a), b, a]);
    expect(run.items.map((i) => [i.meta.credits_used, i.meta.cache_hit])).toEqual([
      [1, false],
      [0, true],
      [1, false],
      [0, true],
    ]);
    expect(spy.looked.filter((key) => key === product.normalize(a))).toHaveLength(1);
    expect(run).toMatchObject({
      requested: 4,
      processed: 4,
      creditsUsed: 2,
      creditsRemaining: 8,
      stoppedReason: null,
      refused: null,
    });
  });

  it("answers test and malformed values free, even with no credits, and never lists or remembers them", async () => {
    const acct = await funded(0);
    const inputs = [samples.malformed(), ...(samples.test ? [samples.test()] : [])];
    const spy = spied(product);
    const run = await walkOf(spy.product, acct.payer, inputs);
    expect(run).toMatchObject({
      requested: inputs.length,
      processed: inputs.length,
      creditsUsed: 0,
      stoppedReason: null,
      refused: null,
    });
    expect(run.items.map((i) => i.meta.credits_used)).toEqual(inputs.map(() => 0));
    expect(run.items.map((i) => i.test)).toEqual(inputs.map((_, n) => n === 1));
    if (product.local) expect(spy.looked).toEqual([]);
    expect(await countRows("repeats", acct.accountId, product.name)).toBe(0);
    expect(await countRows("suppressions", acct.accountId, product.name)).toBe(0);
    // History keeps every answer but test values (docs/email.md, "Suppressions and history").
    expect(await countRows("history", acct.accountId, product.name)).toBe(product.history ? 1 : 0);
  });

  it("answers a repeat within 7 days free with cache_hit, and bills a repeat past the window again", async () => {
    const acct = await funded(10);
    const [value] = samples.paid(1);
    expect((await walkOf(product, acct.payer, [value])).creditsUsed).toBe(1);
    await backdateRepeats(acct.accountId, product.name, 6 * DAY_MS);
    const repeat = await walkOf(product, acct.payer, [value]);
    expect([repeat.creditsUsed, repeat.items[0]!.meta.cache_hit]).toEqual([0, true]);
    await backdateRepeats(acct.accountId, product.name, 7 * DAY_MS + 60_000);
    const past = await walkOf(product, acct.payer, [value]);
    expect([past.creditsUsed, past.items[0]!.meta.cache_hit, past.creditsRemaining]).toEqual([1, false, 8]);
  });

  it("bills a repeat again with refresh, marking it refreshed", async () => {
    const acct = await funded(10);
    const [value] = samples.paid(1);
    await walkOf(product, acct.payer, [value]);
    const refreshed = await walkOf(product, acct.payer, [value], { refresh: true });
    expect(refreshed.items[0]!.meta).toMatchObject({ credits_used: 1, cache_hit: false, refreshed: true });
    expect(refreshed.creditsRemaining).toBe(8);
  });

  it("answers a repeat younger than max_age free and bills an older one again, marking it refreshed", async () => {
    const acct = await funded(10);
    const [value] = samples.paid(1);
    await walkOf(product, acct.payer, [value]);
    await backdateRepeats(acct.accountId, product.name, 120_000);
    const young = await walkOf(product, acct.payer, [value], { maxAgeSeconds: 300 });
    expect(young.items[0]!.meta).toMatchObject({ credits_used: 0, cache_hit: true, refreshed: false });
    const old = await walkOf(product, acct.payer, [value], { maxAgeSeconds: 60 });
    expect(old.items[0]!.meta).toMatchObject({ credits_used: 1, cache_hit: false, refreshed: true });
    expect(old.creditsRemaining).toBe(8);
  });

  it("walks in order and stops exactly where credits run out", async () => {
    const acct = await funded(2);
    const [a, b, c] = samples.paid(3);
    const inputs = [a, samples.free(), b, c, samples.free()];
    const run = await walkOf(product, acct.payer, inputs);
    expect(run).toMatchObject({
      requested: 5,
      processed: 3,
      creditsUsed: 2,
      creditsRemaining: 0,
      stoppedReason: "insufficient_credits",
      refused: null,
    });
    expect(run.items.map((i) => [i.index, i.input, i.meta.credits_used])).toEqual([
      [0, a, 1],
      [1, inputs[1], 0],
      [2, b, 1],
    ]);
  });

  it("refuses a walk whose first value cannot be paid, charging nothing; a free first value is answered", async () => {
    const acct = await funded(0);
    const [value] = samples.paid(1);
    const refused = await walkOf(product, acct.payer, [value, samples.free()]);
    expect(refused).toMatchObject({
      items: [],
      processed: 0,
      creditsUsed: 0,
      stoppedReason: "insufficient_credits",
      refused: "insufficient_credits",
    });
    const partial = await walkOf(product, acct.payer, [samples.malformed(), value]);
    expect(partial).toMatchObject({
      processed: 1,
      creditsUsed: 0,
      stoppedReason: "insufficient_credits",
      refused: null,
    });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 0, credits: 0 });
  });

  it("stops at the key's daily cap with key_spend_cap, then refuses once the cap is spent", async () => {
    const acct = await funded(10, 2);
    const [a, b, c, d] = samples.paid(4);
    const capped = await walkOf(product, acct.payer, [a, b, c]);
    expect(capped).toMatchObject({ processed: 2, creditsUsed: 2, stoppedReason: "key_spend_cap", refused: null });
    const spent = await walkOf(product, acct.payer, [d]);
    expect(spent).toMatchObject({ processed: 0, creditsUsed: 0, refused: "key_spend_cap" });
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 8, reserved: 0 });
  });

  it("releases the hold when the lookup fails: nothing reserved, nothing charged", async () => {
    const acct = await funded(3);
    const broken = { ...product, lookup: async () => Promise.reject(new Error("upstream broke")) };
    await expect(walkOf(broken, acct.payer, samples.paid(2))).rejects.toThrow("upstream broke");
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
      pack_credits: 3,
      reserved: 0,
      available: 3,
    });
    expect(await ledgerCharges(acct.accountId, () => true)).toEqual({ rows: 0, credits: 0 });
  });

  it("writes one ledger row per charged walk, equal to the credits its items report", async () => {
    const acct = await funded(10);
    const [a, b] = samples.paid(2);
    const requestId = `ledger-${rand()}`;
    const run = await walkOf(product, acct.payer, [a, samples.free(), b, samples.respell(a)], {}, requestId);
    const reported = run.items.reduce((sum, i) => sum + i.meta.credits_used, 0);
    expect([run.creditsUsed, reported]).toEqual([2, 2]);
    expect(await ledgerCharges(acct.accountId, (id) => id === requestId)).toEqual({ rows: 1, credits: 2 });
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
  });

  if (product.suppressions)
    describe("suppressions", () => {
      it("answers a suppressed value from its stored answer, free, when the walk honours the list", async () => {
        const acct = await funded(5);
        // A product whose answers never suppress by themselves (address, phone: only feedback would) proves manual
        // entries alone.
        const gone = samples.gone ? [samples.gone()] : [];
        const spy = spied(product);
        if (gone.length) await walkOf(spy.product, acct.payer, gone, { honorSuppressions: false });
        const [manual] = samples.paid(1);
        const entry = product.suppressions!.manual(manual)!;
        await addSuppressions(database(env), acct.accountId, product.name, {
          entries: [{ key: entry.key, reason: "manual", result: entry.result }],
          now: Date.now(),
        });
        const run = await walkOf(spy.product, acct.payer, [...gone, manual]);
        expect(run.items.map((i) => [i.meta.suppressed, i.meta.credits_used, i.meta.cache_hit])).toEqual(
          [...gone, manual].map(() => [true, 0, false]),
        );
        expect(run.items.at(-1)!.data).toEqual(entry.result);
        expect(spy.looked).toEqual(gone.map((value) => product.normalize(value)));
        expect(run.creditsRemaining).toBe(5);
      });

      it(
        "looks a suppressed value up fresh when the list is not honoured, and a non-suppressing answer takes it " +
          "off",
        async () => {
          const acct = await funded(5);
          const [value] = samples.paid(1);
          const entry = product.suppressions!.manual(value)!;
          await addSuppressions(database(env), acct.accountId, product.name, {
            entries: [{ key: entry.key, reason: "manual", result: entry.result }],
            now: Date.now(),
          });
          const single = await walkOf(product, acct.payer, [value], { honorSuppressions: false });
          expect(single.items[0]!.meta).toMatchObject({ suppressed: false, credits_used: 1 });
          expect(await countRows("suppressions", acct.accountId, product.name)).toBe(0);
        },
      );
    });

  if (registered && samples.batch)
    describe("over HTTP", () => {
      const batch = (key: string, values: unknown[]) =>
        call(samples.batch!.path, json({ [samples.batch!.field]: values }, { Authorization: `Bearer ${key}` }));

      it("answers 402 INSUFFICIENT_CREDITS only when the first value is refused", async () => {
        const acct = await funded(0);
        const [value] = samples.paid(1);
        const refused = await batch(acct.key, [value, samples.malformed()]);
        expect([refused.status, refused.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
        const partial = await batch(acct.key, [samples.malformed(), value]);
        expect([partial.status, partial.body.meta.processed, partial.body.meta.stopped_reason]).toEqual([
          200,
          1,
          "insufficient_credits",
        ]);
      });

      it("answers 429 KEY_SPEND_CAP_REACHED when the key's cap is already spent", async () => {
        const acct = await funded(5, 1);
        // The first credit's units all used (IP: five placing lookups), so the next value needs a second credit.
        const [b, ...first] = samples.paid(unitsPerCredit + 1);
        expect((await batch(acct.key, first)).body.meta.credits_used).toBe(1);
        const capped = await batch(acct.key, [b]);
        expect([capped.status, capped.body.error.code]).toEqual([429, "KEY_SPEND_CAP_REACHED"]);
      });
    });
});

describe.each(subjectsWith((p) => p.asAsked))("one answer for every spelling: $label", ({ product, samples }) => {
  it("is asked as each other spelling asked it, and not again for the input it was made for", async () => {
    const acct = await funded(10);
    const [a] = samples.paid(1);
    const respelled = samples.respell(a);
    const asked: unknown[] = [];
    const spy: Product = {
      ...product,
      asAsked: (result, input) => (asked.push(input), product.asAsked!(result, input)),
    };
    const run = await walkOf(spy, acct.payer, [a, respelled, a]);
    expect(run.items.map((i) => [i.meta.credits_used, i.meta.cache_hit])).toEqual([
      [1, false],
      [0, true],
      [0, true],
    ]);
    expect(asked).toEqual([respelled]);
  });
});
