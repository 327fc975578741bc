import type { UsageCounter } from "../../../durable-objects/account-credits";
import type { Credits, StopReason } from "../credits/credits";
import type { Product, ProductContext, WalkOptions } from "../product";
import type { Unique } from "./plan";

/** A fresh answer's cost once the fair-use allowance has been applied. */
export interface Priced {
  units: number;
  fairUseBilled: boolean;
  counter?: UsageCounter;
  /** Counted against the fair-use window whether billed or not. */
  fairUse: boolean;
}

export interface Paid<In, Out> {
  /** Fresh uniques answered (looked up and paid for), in list order. */
  answered: { u: Unique<In, Out>; price: Priced }[];
  /** First input position not answered (the list's length when all were). */
  stopIndex: number;
  limitedBy: StopReason | null;
  holdId: string | null;
}

/** Applies the fair-use allowance to a product's price: free while it lasts. A repeat answered fresh costs nothing. */
function applyPrice<In, Out>(product: Product<In, Out>, u: Unique<In, Out>, allowance: { left: number }): Priced {
  if (u.repeat) return { units: 0, fairUseBilled: false, fairUse: false };
  const price = product.price(u.looked!.result);
  if (!price.fairUse) return { units: price.units, fairUseBilled: false, fairUse: false, ...(price.counter ? { counter: price.counter } : {}) };
  if (allowance.left > 0) {
    allowance.left -= 1;
    return { units: 0, fairUseBilled: false, fairUse: true, ...(price.counter ? { counter: price.counter } : {}) };
  }
  return { units: price.units, fairUseBilled: price.units > 0, fairUse: true, ...(price.counter ? { counter: price.counter } : {}) };
}

async function lookUp<In, Out>(product: Product<In, Out>, ctx: ProductContext, wave: Unique<In, Out>[], options: WalkOptions) {
  const looked = await product.lookup(ctx, wave.map((u) => u.input), options);
  wave.forEach((u, i) => (u.looked = looked[i]!));
}

/**
 * Remote products: hold one unit per fresh value, then look up in waves no larger than the units still held, so the
 * walk stops exactly where credits run out and no handshake is made that nobody can pay for.
 */
export async function payRemote<In, Out>(product: Product<In, Out>, ctx: ProductContext, credits: Credits, fresh: Unique<In, Out>[], options: WalkOptions, requestId: string, paid: Paid<In, Out>): Promise<void> {
  if (!fresh.length) return;
  const hold = await credits.hold({ requestId, product: product.name, units: fresh.length, unitsPerCredit: product.unitsPerCredit });
  if (!hold.ok) {
    paid.stopIndex = fresh[0]!.index;
    paid.limitedBy = hold.reason;
    return;
  }
  paid.holdId = hold.id;
  paid.limitedBy = hold.limitedBy;
  const allowance = { left: hold.fairUseRemaining };
  let slots = hold.units;
  const pending = [...fresh];
  while (pending.length) {
    if (slots <= 0) {
      paid.stopIndex = pending[0]!.index;
      break;
    }
    const wave = pending.splice(0, slots);
    await lookUp(product, ctx, wave, options);
    for (const u of wave) {
      const price = applyPrice(product, u, allowance);
      slots -= price.units;
      paid.answered.push({ u, price });
    }
  }
}

/**
 * Local products: every fresh value is looked up first (a dataset read), then exactly the units the answers cost are
 * held, and the list is answered in order up to where the held units run out.
 */
export async function payLocal<In, Out>(product: Product<In, Out>, ctx: ProductContext, credits: Credits, fresh: Unique<In, Out>[], options: WalkOptions, requestId: string, paid: Paid<In, Out>): Promise<void> {
  if (!fresh.length) return;
  await lookUp(product, ctx, fresh, options);
  const worst = fresh.map((u) => applyPrice(product, u, { left: 0 }));
  const wanted = worst.reduce((sum, p) => sum + p.units, 0);
  let budget = Number.POSITIVE_INFINITY;
  const allowance = { left: 0 };
  if (wanted > 0) {
    const hold = await credits.hold({ requestId, product: product.name, units: wanted, unitsPerCredit: product.unitsPerCredit });
    budget = hold.ok ? hold.units : 0;
    paid.limitedBy = hold.ok ? hold.limitedBy : hold.reason;
    paid.holdId = hold.ok ? hold.id : null;
    allowance.left = hold.ok ? hold.fairUseRemaining : 0;
  }
  for (const u of fresh) {
    const price = applyPrice(product, u, allowance);
    if (price.units > budget) {
      paid.stopIndex = u.index;
      break;
    }
    budget -= price.units;
    paid.answered.push({ u, price });
  }
}
