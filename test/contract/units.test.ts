/**
 * Products whose credit buys several units, `n` (products.md "IP": five placing lookups per credit; autocomplete: ten
 * requests). The opening lookup of a block reports credits_used 1, the next n - 1 0, `prepaid` tells how many remain,
 * exact under concurrency; free answers use no slot; an abandoned hold's units go back. Run with the fake product,
 * remote and local, and with every registered product that sells several units a credit, as registered.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { asProduct } from "../../src/engines/product";
import { fakeProduct } from "./fake-product";
import { accountObject } from "../helpers";
import { FAKE, funded, ledgerCharges, UNIT_SUBJECTS, walkOf } from "./helpers";

const SUBJECTS = [
  ...[
    asProduct(fakeProduct({ name: "units", unitsPerCredit: 5 })),
    asProduct(fakeProduct({ name: "unitslocal", cost: "local", unitsPerCredit: 5 })),
  ].map((product) => ({ label: `${product.name} (${product.cost})`, product, samples: FAKE })),
  ...UNIT_SUBJECTS,
];

beforeAll(async () => {
  for (const subject of SUBJECTS) await subject.samples.setup?.();
});

/** `1, 0 x (n - 1)`: what a block of n lookups reports, the opener first. */
const block = (n: number) => [1, ...Array<number>(n - 1).fill(0)];

describe.each(SUBJECTS)("units a credit: $label", ({ product, samples }) => {
  const n = product.unitsPerCredit;

  it("reports 1, 0 x (n - 1), 1 for sequential single lookups, with prepaid n - 1 down to 0, then n - 1", async () => {
    const acct = await funded(10);
    const runs = [];
    for (const value of samples.paid(n + 1)) runs.push(await walkOf(product, acct.payer, [value]));
    expect(runs.map((r) => r.creditsUsed)).toEqual([...block(n), 1]);
    expect(runs.map((r) => r.items[0]!.meta.credits_used)).toEqual([...block(n), 1]);
    expect(runs.map((r) => r.prepaid)).toEqual([...Array.from({ length: n }, (_, i) => n - 1 - i), n - 1]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(8);
  });

  it("charges exactly 4 credits for 4 n concurrent single lookups and ends with 0 prepaid", async () => {
    const acct = await funded(30);
    const runs = await Promise.all(samples.paid(4 * n).map((value) => walkOf(product, acct.payer, [value])));
    expect(runs.reduce((sum, r) => sum + r.creditsUsed, 0)).toBe(4);
    expect(runs.filter((r) => r.items[0]!.meta.credits_used === 1)).toHaveLength(4);
    expect(await ledgerCharges(acct.accountId, () => true)).toMatchObject({ credits: 4 });
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 26, reserved: 0 });
    expect((await walkOf(product, acct.payer, samples.paid(1))).prepaid).toBe(n - 1);
  });

  it(
    "answers 4 n concurrent single lookups on a balance of exactly 4 credits: a hold for one unit needs no whole " +
      "free credit",
    async () => {
      const acct = await funded(4);
      const runs = await Promise.all(samples.paid(4 * n).map((value) => walkOf(product, acct.payer, [value])));
      expect(runs.map((r) => [r.refused, r.processed])).toEqual(runs.map(() => [null, 1]));
      expect(runs.reduce((sum, r) => sum + r.creditsUsed, 0)).toBe(4);
      expect(await ledgerCharges(acct.accountId, () => true)).toMatchObject({ rows: 4, credits: 4 });
      expect(await accountObject(acct.accountId).snapshot()).toMatchObject({
        pack_credits: 0,
        reserved: 0,
        available: 0,
      });
      expect(await accountObject(acct.accountId).balance(product.name)).toEqual({ available: 0, prepaid: 0 });
      expect((await walkOf(product, acct.payer, samples.paid(1))).refused).toBe("insufficient_credits");
    },
  );

  it(
    "keeps money exact when concurrent holds are released: only answers are charged, lent units come " + "back",
    async () => {
      const acct = await funded(4);
      const stub = accountObject(acct.accountId);
      const units = { product: product.name, perCredit: n };
      const holds = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stub.reserve({ requestId: `r${i}`, amount: 1, units })),
      );
      expect(holds.every((h) => h.ok)).toBe(true);
      const ids = holds.map((h) => (h.ok ? h.reservationId : ""));
      // Seven answer, thirteen fail, settled in an order that releases the openers of credits first.
      const settled = [];
      for (const [i, id] of ids.entries())
        settled.push(await (i % 3 === 0 ? stub.settle(id, { units: [1] }) : stub.release(id)));
      const used = settled.filter((_, i) => i % 3 === 0).length;
      const charged = settled.reduce((sum, s) => sum + s.charged, 0);
      const { prepaid } = await stub.balance(product.name);
      // Every unit of a charged credit is an answer or prepaid (five a credit: 2 charged, 3 prepaid; ten: 2, 13).
      expect([used, charged * n - (prepaid ?? 0)]).toEqual([7, 7]);
      expect(charged).toBeGreaterThanOrEqual(Math.ceil(7 / n));
      expect(charged).toBeLessThanOrEqual(Math.ceil(20 / n));
      expect(await stub.snapshot()).toMatchObject({ pack_credits: 4 - charged, reserved: 0 });
    },
  );

  it("reports 1, 0 x (n - 1), 1, 0 for a list of n + 2 and leaves n - 2 prepaid", async () => {
    const acct = await funded(10);
    const run = await walkOf(product, acct.payer, samples.paid(n + 2));
    expect(run.items.map((i) => i.meta.credits_used)).toEqual([...block(n), 1, 0]);
    expect([run.creditsUsed, run.prepaid, run.creditsRemaining]).toEqual([2, n - 2, 8]);
  });

  it("uses no slot for free answers", async () => {
    const acct = await funded(10);
    const [a, b] = samples.paid(2);
    const run = await walkOf(product, acct.payer, [
      a,
      samples.free(),
      samples.malformed(),
      samples.test!(),
      samples.free(),
      b,
    ]);
    expect(run.items.map((i) => i.meta.credits_used)).toEqual([1, 0, 0, 0, 0, 0]);
    expect([run.creditsUsed, run.prepaid]).toEqual([1, n - 2]);
  });

  it("reports the prepaid units on a call that charges nothing", async () => {
    const acct = await funded(10);
    expect((await walkOf(product, acct.payer, [samples.free()])).prepaid).toBe(0);
    await walkOf(product, acct.payer, samples.paid(1));
    const free = await walkOf(product, acct.payer, [samples.free(), samples.malformed()]);
    expect([free.creditsUsed, free.prepaid, free.creditsRemaining]).toEqual([0, n - 1, 9]);
  });

  it("answers n of n + 2 with 1 credit and no prepaid units, stopping with insufficient_credits", async () => {
    const acct = await funded(1);
    const run = await walkOf(product, acct.payer, samples.paid(n + 2));
    expect(run).toMatchObject({
      requested: n + 2,
      processed: n,
      creditsUsed: 1,
      creditsRemaining: 0,
      prepaid: 0,
      stoppedReason: "insufficient_credits",
    });
    expect(run.items.map((i) => i.meta.credits_used)).toEqual(block(n));
  });

  it("answers from prepaid units alone when no credit is left", async () => {
    const acct = await funded(1);
    await walkOf(product, acct.payer, samples.paid(1));
    const run = await walkOf(product, acct.payer, samples.paid(n + 1));
    expect(run).toMatchObject({
      processed: n - 1,
      creditsUsed: 0,
      prepaid: 0,
      stoppedReason: "insufficient_credits",
      refused: null,
    });
    expect((await walkOf(product, acct.payer, samples.paid(1))).refused).toBe("insufficient_credits");
  });

  it("gives a failed lookup's held units back", async () => {
    const acct = await funded(1);
    await walkOf(product, acct.payer, samples.paid(1));
    const broken = { ...product, lookup: async () => Promise.reject(new Error("upstream broke")) };
    await expect(walkOf(broken, acct.payer, samples.paid(3))).rejects.toThrow("upstream broke");
    const after = await walkOf(product, acct.payer, samples.paid(n - 1));
    expect(after.items.map((i) => i.meta.credits_used)).toEqual(Array(n - 1).fill(0));
    expect([after.creditsUsed, after.prepaid]).toEqual([0, 0]);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 0, reserved: 0 });
  });

  it("gives an abandoned hold's units back when the alarm releases it", async () => {
    const acct = await funded(2);
    await walkOf(product, acct.payer, samples.paid(1));
    const stub = accountObject(acct.accountId);
    const held = await stub.reserve({
      requestId: "abandoned",
      amount: 3,
      units: { product: product.name, perCredit: n },
      now: Date.now() - 16 * 60_000,
    });
    expect(held).toMatchObject({ ok: true, granted: 0, grantedUnits: 3 });
    await runDurableObjectAlarm(stub);
    expect((await stub.snapshot()).reserved).toBe(0);
    const after = await walkOf(product, acct.payer, samples.paid(1));
    expect([after.creditsUsed, after.prepaid]).toEqual([0, n - 2]);
  });
});
