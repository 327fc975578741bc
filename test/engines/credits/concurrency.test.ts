import { beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../../src/engines/product";
import { anotherKey, bearer, call, createAccount, accountObject, json, type TestAccount } from "../../helpers";
import { installSamples, LEI } from "../../entity-samples";
import { asProduct } from "../../../src/engines/product";
import { fakeProduct } from "../../contract/fake-product";
import { funded, ledgerCharges, rand, walkOf } from "../../contract/helpers";

/** `n` keys of one account (the rate limit is per key, so 50 requests spread over 10 keys stay under it). */
async function keysOf(acct: TestAccount, n: number): Promise<string[]> {
  const keys = [acct.key];
  while (keys.length < n) keys.push(await anotherKey(acct));
  return keys;
}

const charged = async (accountId: string) => (await ledgerCharges(accountId, () => true)).credits;

beforeAll(installSamples);

describe("one paid answer per (account, product, value) under concurrency", () => {
  it("charges 1 of 50 parallel identical domain lookups from 10 keys; the other 49 are free repeats", async () => {
    const acct = await createAccount({ pack: 100 });
    const keys = await keysOf(acct, 10);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call("/api/v1/email/domain/catchall.example", bearer(keys[i % 10]!))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const metas = responses.map((r) => r.body.meta as { credits_used: number; cache_hit: boolean });
    expect(metas.reduce((sum, m) => sum + m.credits_used, 0)).toBe(1);
    expect(metas.filter((m) => m.cache_hit)).toHaveLength(49);
    expect(await charged(acct.accountId)).toBe(1);
    expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 99, reserved: 0 });
  });

  it("charges 1 of 50 parallel identical entity lookups from 10 keys", async () => {
    const acct = await createAccount({ pack: 100 });
    const keys = await keysOf(acct, 10);
    const body = { identifier: LEI.widgets };
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call("/api/v1/entity", json(body, { Authorization: `Bearer ${keys[i % 10]}` })),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const metas = responses.map((r) => r.body.meta as { credits_used: number; cache_hit: boolean });
    expect(metas.reduce((sum, m) => sum + m.credits_used, 0)).toBe(1);
    expect(await charged(acct.accountId)).toBe(1);
  });

  it.each([
    ["remote", asProduct(fakeProduct())],
    ["local", asProduct(fakeProduct({ name: "fakelocal", cost: "local" }))],
  ] as const)(
    "charges 1 of 50 parallel identical walks of a %s product, paid by 5 keys",
    async (_label, product: Product) => {
      const acct = await funded(100);
      const value = `paid:${rand()}`;
      const runs = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          walkOf(product, { ...acct.payer, keyId: i % 5 === 0 ? acct.keyId : `other-${i % 5}` }, [
            i % 2 ? value : value.toUpperCase(),
          ]),
        ),
      );
      expect(runs.every((run) => run.refused === null && run.items.length === 1)).toBe(true);
      expect(runs.reduce((sum, run) => sum + run.creditsUsed, 0)).toBe(1);
      expect(runs.filter((run) => run.items[0]!.meta.cache_hit)).toHaveLength(49);
      expect(await charged(acct.accountId)).toBe(1);
    },
  );
});

/** A remote product whose lookups wait until the test lets them finish: work held in flight. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const base = fakeProduct();
  const product = asProduct({
    ...base,
    lookup: async (ctx, inputs, options) => {
      if (inputs.some((v) => v.startsWith("free:"))) await gate;
      return base.lookup(ctx, inputs, options);
    },
  });
  return { product, open };
}

describe("holds are bounded by the work in flight", () => {
  it(
    "a slow batch of 10 on a balance of 10 leaves room for a concurrent paid lookup, and ends charging only what it " +
      "used",
    async () => {
      const acct = await funded(10);
      const { product, open } = gated();
      const batch = walkOf(
        product,
        acct.payer,
        Array.from({ length: 10 }, () => `free:${rand()}`),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const single = await walkOf(product, acct.payer, [`paid:${rand()}`]);
      expect(single.refused).toBeNull();
      expect(single.creditsUsed).toBe(1);
      open();
      const run = await batch;
      expect(run.processed).toBe(10);
      expect(run.creditsUsed).toBe(0);
      expect(await accountObject(acct.accountId).snapshot()).toMatchObject({ pack_credits: 9, reserved: 0 });
    },
  );
});
