/**
 * Concurrent walks over the same values (src/engines/walk/pay-all.ts): a walk that finds values another walk is
 * answering settles what it holds before it waits, so no walk waits while holding what another waits for, a wait
 * reserves nothing, and each list answers about as fast as it would alone (CLAIM_WAIT_MS is 65 s: every bound
 * below is far under it, so a walk that waited for a claim to time out fails the test).
 */
import { describe, expect, it } from "vitest";
import { asProduct } from "../../../src/engines/product";
import { fakeProduct } from "../../contract/fake-product";
import { funded, ledgerCharges, rand, walkOf } from "../../contract/helpers";
import { accountObject } from "../../helpers";

const product = asProduct(fakeProduct());

/** The walks' answers, or a failure once `ms` passed (a deadlock waits 65 s). */
const within = <T>(work: Promise<T>, ms: number) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not answered within ${ms} ms`)), ms)),
  ]);

/** Polls `ready` every 10 ms; false once `ms` passed. */
async function until(ready: () => boolean | Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

const charged = async (accountId: string) => (await ledgerCharges(accountId, () => true)).credits;
const paidList = (n: number) => Array.from({ length: n }, () => `paid:${rand()}`);

describe("walks over the same values at once", () => {
  it("two identical lists of 10 at a balance of 3: both answer at once, 3 charged in all, each once", async () => {
    const acct = await funded(3);
    const values = paidList(10);
    const [a, b] = await within(
      Promise.all([walkOf(product, acct.payer, values), walkOf(product, acct.payer, values)]),
      5_000,
    );
    for (const run of [a, b]) {
      expect(run).toMatchObject({ refused: null, requested: 10, processed: 3, stoppedReason: "insufficient_credits" });
      expect(run.items.map((i) => i.index)).toEqual([0, 1, 2]);
    }
    expect(a.creditsUsed + b.creditsUsed).toBe(3);
    // Each of the three values was paid by one walk and read as a free repeat by the other.
    expect([0, 1, 2].map((i) => a.items[i]!.meta.credits_used + b.items[i]!.meta.credits_used)).toEqual([1, 1, 1]);
    expect(await charged(acct.accountId)).toBe(3);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 0, reserved: 0 });
  });

  it("four identical lists of 50 at a balance of 40: none refused, 40 charged once each, all 40 answered", async () => {
    const acct = await funded(40);
    const values = paidList(50);
    const runs = await within(
      Promise.all(Array.from({ length: 4 }, () => walkOf(product, acct.payer, values))),
      10_000,
    );
    for (const run of runs) {
      expect(run).toMatchObject({ refused: null, processed: 40, stoppedReason: "insufficient_credits" });
    }
    expect(runs.reduce((sum, run) => sum + run.creditsUsed, 0)).toBe(40);
    const perValue = Array.from({ length: 40 }, (_, i) =>
      runs.reduce((sum, run) => sum + run.items[i]!.meta.credits_used, 0),
    );
    expect(perValue).toEqual(Array(40).fill(1));
    expect(await charged(acct.accountId)).toBe(40);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 0, reserved: 0 });
  });
});

/** A remote product whose `free:slow…` lookups wait until the test opens the gate: a claim held in flight. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const looked: string[] = [];
  const base = fakeProduct();
  const slow = asProduct({
    ...base,
    lookup: async (ctx, inputs, options) => {
      looked.push(...inputs);
      if (inputs.some((v) => v.startsWith("free:slow"))) await gate;
      return base.lookup(ctx, inputs, options);
    },
  });
  return { product: slow, open, looked };
}

describe("a walk waiting for another's answer", () => {
  it("holds nothing while it waits: a concurrent paid lookup is answered, not refused 402", async () => {
    const acct = await funded(2);
    const { product: slow, open, looked } = gated();
    const value = `free:slow${rand()}`;
    const first = walkOf(slow, acct.payer, [value]);
    expect(await until(() => looked.includes(value), 5_000)).toBe(true);
    const mine = `free:${rand()}`;
    const waiting = walkOf(slow, acct.payer, [mine, value]);
    expect(await until(() => looked.includes(mine), 5_000)).toBe(true);
    // The waiting walk has answered its own value; once it waits, only the slow lookup's unit is held.
    await until(async () => (await accountObject(acct.accountId).snapshot()).reserved === 1, 1_000);
    expect((await accountObject(acct.accountId).snapshot()).reserved).toBe(1);
    const single = await walkOf(slow, acct.payer, [`paid:${rand()}`]);
    expect(single).toMatchObject({ refused: null, processed: 1, creditsUsed: 1 });
    open();
    const [one, two] = await within(Promise.all([first, waiting]), 5_000);
    expect(one).toMatchObject({ refused: null, processed: 1, creditsUsed: 0 });
    expect(two).toMatchObject({ refused: null, processed: 2, creditsUsed: 0, stoppedReason: null });
    expect(two.items.map((i) => (i.data as { value: string }).value)).toEqual([mine, value]);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 1, reserved: 0 });
  });
});
