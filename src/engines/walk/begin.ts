import type { Credits, Payer } from "../credits/credits";
import { listsOf, readRecalled, recallWant } from "../lists/account-lists";
import type { Product, WalkOptions } from "../product";
import type { Paid } from "./pay";
import { applyRecalled, listsWanted, recallStored, type Unique } from "./plan";

/**
 * Step 2 and the first hold in one call to the account's object, for the common case of one value to pay for (a
 * single lookup, or a list of one distinct value): the object answers the value's repeat and suppression rows and
 * holds for it (claiming it) in one synchronous step. When a stored row answers the value after all, the hold is
 * settled at 0 with the rest; when the hold was refused and a row answers it, nothing was held. Longer lists read the
 * lists first and hold per wave (src/engines/walk/pay.ts), as the number of values to pay for is not known before.
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
): Promise<void> {
  const open = uniques.filter((u) => !u.free);
  if (!payer || open.length !== 1 || !credits.begin) {
    await recallStored(env, null, product, payer, uniques, options, now);
    return;
  }
  const u = open[0]!;
  const each = product.holdUnits?.(options) ?? 1;
  const cost = typeof product.cost === "function" ? product.cost(options) : product.cost;
  const begun = await credits.begin(
    {
      requestId,
      product: product.name,
      units: each,
      unitsPerCredit: product.unitsPerCredit,
      share: cost === "remote",
      claims: [{ key: u.key, units: each }],
    },
    { product: product.name, keys: [u.key], at: now, want: recallWant(listsWanted(product, options), product.keys) },
  );
  const hold = begun.hold;
  if (hold.ok) {
    paid.holdId = hold.id;
    paid.allowance.left = hold.fairUseRemaining;
    paid.afterHold = { held: hold.held, available: hold.available };
  } else if (hold.reason === "insufficient_credits" && hold.available !== undefined)
    // Refused for want of credits: if a stored row answers the value, this is the balance its answer reports.
    paid.afterHold = { held: 0, available: hold.available };
  paid.begun = hold;
  const stub = listsOf(env, payer.accountId);
  applyRecalled(
    env,
    product,
    open,
    options,
    now,
    await readRecalled(stub, product.name, begun.recall, [u.key], product.keys),
  );
}
