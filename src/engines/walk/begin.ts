import type { Credits, Payer } from "../credits/credits";
import { listsOf, readRecalled, recallWant } from "../lists/account-lists";
import type { Product, ProductContext, WalkOptions } from "../product";
import { IGNORED, latestByKey } from "../lists/feedback";
import type { Paid } from "./pay";
import { applyRecalled, listsWanted, recallStored, type Unique } from "./plan";

/**
 * Step 2 and the first hold in one call to the account's object: the object answers the values' repeat and suppression
 * rows and, in the same synchronous step, holds (claiming) for the values those rows leave to pay for: the first wave
 * (with `share`, at most half of what is available, never less than one unit). A single lookup, or a batch whose first
 * wave covers its list, makes this one call before its answer. When the walk reads the rows differently from the object
 * (a repeat its options renew, a row of an older key), the wave's hold resizes (src/engines/walk/pay.ts); values held
 * for and answered free are settled at 0 with the rest.
 */
export async function recallAndHold<In, Out>(
  env: Env,
  product: Product<In, Out>,
  payer: Payer | null,
  credits: Credits,
  uniques: Unique<In, Out>[],
  options: WalkOptions,
  requestId: string,
  paid: Paid<In, Out>,
  now: number,
  /** The product's context: the first call's feedback rows go there (a product with `feedbackWindowMs`). */
  ctx?: ProductContext,
): Promise<void> {
  const open = uniques.filter((u) => !u.free);
  if (!payer || !open.length || !credits.begin) {
    await recallStored(env, null, product, payer, uniques, options, now);
    return;
  }
  const keys = open.map((u) => u.key);
  const each = product.holdUnits?.(options) ?? 1;
  const cost = typeof product.cost === "function" ? product.cost(options) : product.cost;
  const begun = await credits.begin(
    {
      requestId,
      product: product.name,
      units: each,
      unitsPerCredit: product.unitsPerCredit,
      share: cost === "remote",
      claims: keys.map((key) => ({ key, units: each })),
    },
    {
      product: product.name,
      keys,
      at: now,
      want: {
        ...recallWant(listsWanted(product, options), product.keys),
        ...feedbackWant(product, open, now),
      },
      free: { repeatsAfter: freeRepeatsAfter(product, options, now) },
    },
  );
  const hold = begun.hold;
  if (hold.ok) {
    paid.holdId = hold.id;
    paid.allowance.left = hold.fairUseRemaining;
    paid.afterHold = { held: hold.held, available: hold.available };
    paid.unitHold = hold.unitHold;
  } else if (hold.reason === "insufficient_credits" && hold.available !== undefined)
    // Refused for want of credits: if a stored row answers the value, this is the balance its answer reports.
    paid.afterHold = { held: 0, available: hold.available };
  paid.begun = hold;
  const read = feedbackWant(product, open, now).feedback;
  if (ctx && read && begun.recall.feedback)
    ctx.feedback = { keys: new Set(read.keys), latest: latestByKey(begun.recall.feedback) };
  paid.begunFor = begun.asked;
  const stub = listsOf(env, payer.accountId);
  applyRecalled(
    env,
    product,
    open,
    options,
    now,
    await readRecalled(stub, product.name, begun.recall, keys, product.keys),
  );
}

/**
 * The start of the repeat window inside which a value needs no hold: its repeat is free, whether answered from the
 * stored answer (`stored`) or looked up again at no charge (`fresh`: holding for it would make IP buy a credit for a
 * free answer, and settle before answering). A product that decides per repeat (it may renew) is held for, and nothing
 * is free with `refresh`.
 */
function freeRepeatsAfter<In, Out>(product: Product<In, Out>, options: WalkOptions, now: number): number | null {
  if (typeof product.repeats === "function" || options.refresh) return null;
  return options.maxAgeSeconds === null ? 0 : now - options.maxAgeSeconds * 1000;
}

/** The feedback the values' answers report, read by the first call: on the keys the product names (default: theirs). */
function feedbackWant<In, Out>(product: Product<In, Out>, open: Unique<In, Out>[], now: number) {
  const reads = product.readsFeedback;
  if (!reads) return {};
  const keys = reads.keysOf ? [...new Set(open.flatMap((u) => reads.keysOf!(u.input)))] : open.map((u) => u.key);
  return { feedback: { since: now - reads.windowMs, ignored: IGNORED, product: reads.product, keys } };
}
