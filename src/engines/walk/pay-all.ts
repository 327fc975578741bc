import type { Database } from "../../db/client";
import type { Credits } from "../credits/credits";
import type { Product, ProductContext } from "../product";
import { payLocal, payRemote, type Paid } from "./pay";
import { recallStored, type Unique } from "./plan";
import type { WalkRequest } from "./walk";

/** The longest a walk waits for a concurrent walk's answer to the same value: past the longest lookup (60 s). */
export const CLAIM_WAIT_MS = 65_000;

/** Waits on concurrent walks at most this many times; then it pays for what is left without claiming. */
const CLAIM_ROUNDS = 3;

/**
 * Pays for the fresh values; values a concurrent walk of the same account is answering (claimed, `busy`) wait for
 * that answer and are then read as repeats, free. What is still unanswered then (the other walk failed, or its answer
 * starts no repeat window) is paid for here; after a wait that timed out, or a third round, without claiming.
 */
export async function payAll<In, Out>(
  product: Product<In, Out>,
  ctx: ProductContext,
  credits: Credits,
  fresh: Unique<In, Out>[],
  request: WalkRequest<In>,
  paid: Paid<In, Out>,
  db: Database,
  now: number,
) {
  const cost = typeof product.cost === "function" ? product.cost(request.options) : product.cost;
  const pay = cost === "remote" ? payRemote : payLocal;
  let waiting = await pay(product, ctx, credits, fresh, request.options, request.requestId, paid, true);
  for (let round = 1; waiting.length && request.payer; round++) {
    const started = Date.now();
    await credits.awaitClaims(
      product.name,
      waiting.map((u) => u.key),
      CLAIM_WAIT_MS,
    );
    const claim = round < CLAIM_ROUNDS && Date.now() - started < CLAIM_WAIT_MS;
    await recallStored(ctx.env, db, product, request.payer, waiting, request.options, now, true);
    const open = waiting.filter((u) => !u.free && u.index < paid.stopIndex);
    waiting = open.length
      ? await pay(product, ctx, credits, open, request.options, request.requestId, paid, claim)
      : [];
  }
}
