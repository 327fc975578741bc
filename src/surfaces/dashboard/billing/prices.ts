import type { Billing } from "./config";
import type { Item } from "./items";
import type { PriceInMoney } from "./money";

/** A price read from Stripe is kept this long per isolate; one Stripe did not answer, only briefly. */
const FRESH_MS = 10 * 60_000;
const RETRY_MS = 30_000;
const cache = new Map<string, { price: PriceInMoney | null; until: number }>();

/**
 * Each item's price in money, read from Stripe (`GET /v1/prices/{id}`) by the very price ids Checkout sells, so the
 * buttons and the payment page cannot disagree and no amount is written in the Worker's configuration. An item whose
 * price Stripe does not give within 2 s is left out: its button shows no amount and still works.
 */
export async function pricesInMoney(config: Billing, items: Item[]): Promise<Partial<Record<Item, PriceInMoney>>> {
  const found = await Promise.all(items.map(async (item) => [item, await priceOf(config, item)] as const));
  return Object.fromEntries(found.filter(([, price]) => price !== null));
}

async function priceOf(config: Billing, item: Item): Promise<PriceInMoney | null> {
  const id = config.prices[item];
  if (!id) return null;
  const hit = cache.get(id);
  if (hit && hit.until > Date.now()) return hit.price;
  const price = await config.stripe.prices.retrieve(id, undefined, { timeout: 2_000, maxNetworkRetries: 0 }).then(
    (p) =>
      p.unit_amount === null ? null : { amount: p.unit_amount, currency: p.currency, interval: p.recurring?.interval },
    (error: unknown) => {
      console.error(JSON.stringify({ at: "stripe price", price: id, error: String(error) }));
      return null;
    },
  );
  cache.set(id, { price, until: Date.now() + (price ? FRESH_MS : RETRY_MS) });
  return price;
}
