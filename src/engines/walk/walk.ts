import type { ListsWrite, UsageCounter } from "../../../durable-objects/account-credits";
import { unitOutcome, type UnitOutcome } from "../../../durable-objects/account/unit-outcome";
import { database, replicaReads } from "../../db/client";
import { creditsFor, type Credits, type Payer, type Settled, type StopReason } from "../credits/credits";
import { applyPolicy } from "../policy/apply";
import type { Product, ProductContext, WalkOptions } from "../product";
import { buildItems } from "./items";
import type { Paid } from "./pay";
import { payAll } from "./pay-all";
import { recallAndHold } from "./begin";
import { planList } from "./plan";
import { listsOf } from "../lists/account-lists";
import { mergeWrites, rememberWrite, repeatWrite, writesNothing } from "./remember";

export interface WalkRequest<In> {
  env: Env;
  payer: Payer | null;
  /** Ledger and history id: the HTTP request id, a bulk chunk, a monitor run or a re-check. */
  requestId: string;
  /** Queued work: settling the same operation twice charges once. */
  operationId?: string;
  /**
   * An HTTP request's `waitUntil`: the settlement (with the list writes) is made after the answer, which reports what
   * its hold said. Queued work passes none and awaits it before it acknowledges.
   */
  defer?: (work: () => Promise<unknown>) => void;
  inputs: In[];
  options: WalkOptions;
  now?: number;
}

export interface ItemMeta {
  credits_used: number;
  cache_hit: boolean;
  suppressed: boolean;
  refreshed: boolean;
  fair_use_billed: boolean;
}

export interface WalkItem<In, Out> {
  index: number;
  input: In;
  data: Out;
  meta: ItemMeta;
  /** A test value's canonical answer (never in history or suppressions). */
  test: boolean;
}

export interface WalkRun<In, Out> {
  /** In input order, up to where the walk stopped. */
  items: WalkItem<In, Out>[];
  requested: number;
  processed: number;
  creditsUsed: number;
  creditsRemaining: number;
  stoppedReason: StopReason | null;
  /** The first value could not be paid for, so nothing ran and nothing was charged: a route answers 402 or 429. */
  refused: StopReason | null;
  /** Prepaid units of the product left after the call (products whose credit buys several units). */
  prepaid: number | null;
}

/**
 * The paid walk, the same for every product and every path (single, batch, browser, bulk row, monitor run,
 * re-check): dedupe -> local answers -> repeats -> suppressions -> hold -> look up -> settle -> remember, stopping
 * where credits or the key's daily cap run out. Outcomes only: routes turn `refused` into HTTP errors.
 */
export async function walk<In, Out>(product: Product<In, Out>, request: WalkRequest<In>): Promise<WalkRun<In, Out>> {
  const { env, payer, options } = request;
  const now = request.now ?? Date.now();
  const db = database(env);
  const plan = await planList(product, request.inputs);
  const credits = creditsFor(env, payer);
  const paid: Paid<In, Out> = {
    answered: [],
    stopIndex: request.inputs.length,
    limitedBy: null,
    holdId: null,
    spent: 0,
    allowance: { left: 0 },
  };
  // The product's own reads (datasets, the shared mailbox answers) may come from a read replica near the caller.
  const ctx: ProductContext = {
    env: replicaReads(env),
    now,
    accountId: payer?.accountId ?? null,
    ...(request.defer ? { defer: request.defer } : {}),
  };
  try {
    await recallAndHold(env, product, payer, credits, plan.uniques, options, request.requestId, paid, now, ctx);
    await payAll(
      product,
      ctx,
      credits,
      plan.uniques.filter((u) => !u.free),
      request,
      paid,
      db,
      now,
    );
  } catch (err) {
    if (paid.holdId) await credits.release(paid.holdId);
    throw err;
  }
  // Values answered past where the walk stopped (a wave after a value that waited and then could not be paid) are
  // neither returned nor charged.
  paid.answered = paid.answered.filter((a) => a.u.index < paid.stopIndex).sort((a, b) => a.u.index - b.u.index);
  if (paid.stopIndex === 0) {
    if (paid.holdId) await credits.release(paid.holdId);
    const refused = paid.limitedBy ?? "insufficient_credits";
    return {
      items: [],
      requested: request.inputs.length,
      processed: 0,
      creditsUsed: 0,
      creditsRemaining: 0,
      stoppedReason: refused,
      refused,
      prepaid: null,
    };
  }
  // The answers' repeat markers, history and suppressions go to the account's object with the settlement, in one call
  // and one synchronous step: the markers are there before the claims end (a walk that waited on them reads them
  // next). With one unit per credit every item's charge is known before settling; with several (prepaid units) it is
  // when the walk's one hold decides it (`unitOutcome`), and the settlement applies exactly that (`asAnswered`).
  // Otherwise the settlement says which item bought a credit, and history follows it in a second write.
  let built: WalkItem<In, Out>[];
  let settled: Settled;
  const units = paid.answered.map((a) => (payer ? a.price.units : 0));
  const outcome = product.unitsPerCredit > 1 ? answeredOutcome(paid, request, units) : null;
  if (product.unitsPerCredit === 1 || outcome) {
    built = buildItems(product, plan.keyOf, plan.uniques, paid, outcome?.perItem ?? units, request.inputs, null);
    const write = payer ? mergeWrites(repeatWrite(product, paid), rememberWrite(product, request, paid, built)) : null;
    const finishing = () => settle(env, product, credits, paid, request, write, now, outcome !== null);
    settled = deferred(paid, request, finishing, outcome) ?? (await finishing());
  } else {
    settled = await settle(env, product, credits, paid, request, payer ? repeatWrite(product, paid) : null, now);
    built = buildItems(product, plan.keyOf, plan.uniques, paid, settled.credits, request.inputs, null);
    const remembered = rememberWrite(product, request, paid, built);
    const writing = () => listsOf(env, payer!.accountId).writeLists(product.name, remembered, now);
    // History and suppressions follow the settlement; an HTTP request writes them after its answer.
    if (payer && !writesNothing(remembered)) await (request.defer ? request.defer(writing) : writing());
  }
  // Queued work run again (its consumer died after settling): the settlement says what the operation was charged the
  // first time, and the items report that; its answers are repeats now and would read as free.
  const firstRun = settled.firstCharges;
  const items = firstRun
    ? buildItems(product, plan.keyOf, plan.uniques, paid, settled.credits, request.inputs, firstRun)
    : built;
  await applyPolicy(env, product, payer, items, request.defer);
  return {
    items,
    requested: request.inputs.length,
    processed: items.length,
    // A rerun of queued work reports what the ledger charged the operation the first time (its answers are repeats
    // now).
    creditsUsed: firstRun ? Object.values(firstRun).reduce((sum, n) => sum + n, 0) : settled.charged,
    creditsRemaining: settled.remaining,
    stoppedReason: paid.stopIndex < request.inputs.length ? (paid.limitedBy ?? "insufficient_credits") : null,
    refused: null,
    prepaid: settled.prepaid,
  };
}

/** Settles the hold with the list writes (one call), or, without a hold, writes them beside the balance read. */
async function settle<In, Out>(
  env: Env,
  product: Product<In, Out>,
  credits: Credits,
  paid: Paid<In, Out>,
  request: WalkRequest<In>,
  given: ListsWrite | null,
  now: number,
  asAnswered = false,
): Promise<Settled> {
  const write = given && !writesNothing(given) ? given : null;
  if (!paid.holdId) {
    const unitsOf = product.unitsPerCredit > 1 ? product.name : undefined;
    const [{ credits: remaining, prepaid }, firstCharges] = await Promise.all([
      credits.remaining(unitsOf),
      request.operationId ? credits.operationCharges(request.operationId) : null,
      write && request.payer ? listsOf(env, request.payer.accountId).writeLists(product.name, write, now) : null,
    ]);
    return { charged: 0, credits: paid.answered.map(() => 0), remaining, prepaid, firstCharges };
  }
  const usage: Partial<Record<UsageCounter, number>> = {};
  for (const { price } of paid.answered) {
    if (price.counter && (price.fairUse || price.units > 0)) usage[price.counter] = (usage[price.counter] ?? 0) + 1;
  }
  const units = paid.answered.map((a) => a.price.units);
  const operation = request.operationId
    ? { operationId: request.operationId, keys: paid.answered.map((a) => a.u.key) }
    : {};
  const lists = write ? { lists: { product: product.name, write, at: now } } : {};
  return credits.settle(paid.holdId, { units, usage, ...operation, ...lists, ...(asAnswered ? { asAnswered } : {}) });
}

/**
 * A unit hold's outcome the answer can report before settling (docs/billing.md "Settling after the answer"): an HTTP
 * request whose walk made one hold, never resized, that the hold alone decides. Null otherwise (the walk settles
 * first): queued work, a resized hold, or an opener whose answers left units of its credit unused.
 */
function answeredOutcome<In, Out>(
  paid: Paid<In, Out>,
  request: WalkRequest<In>,
  units: number[],
): (UnitOutcome & { prepaid: number }) | null {
  const hold = paid.unitHold;
  if (!request.defer || request.operationId || !paid.holdId || !hold) return null;
  const outcome = unitOutcome(hold, units);
  return outcome && { ...outcome, prepaid: hold.prepaid + outcome.back };
}

/**
 * An HTTP request's settlement after its answer: each charge is the answer's price (one unit a credit), and what is
 * left is what its hold said (`available`, plus what it held beyond the charge, which settling gives back). If the
 * settlement never lands (the isolate died), the reservation's alarm releases the hold: the answer is free and its
 * claims end (docs/billing.md "Settling after the answer"). Null when the walk must settle before answering.
 */
function deferred<In, Out>(
  paid: Paid<In, Out>,
  request: WalkRequest<In>,
  finishing: () => Promise<Settled>,
  /** A unit hold's outcome (`answeredOutcome`): the items' credits and the pool after settling. */
  outcome: (UnitOutcome & { prepaid: number }) | null = null,
): Settled | null {
  const hold = paid.afterHold;
  if (!request.defer || request.operationId || !hold || (!paid.holdId && paid.answered.length)) return null;
  const credits = outcome?.perItem ?? paid.answered.map((a) => a.price.units);
  const charged = outcome?.charge ?? credits.reduce((sum, n) => sum + n, 0);
  request.defer(() =>
    finishing().catch((err) =>
      console.error(
        JSON.stringify({ event: "deferred_settle_failed", requestId: request.requestId, error: String(err) }),
      ),
    ),
  );
  // Without a hold (refused, and every value answered from stored rows) only the list writes are left to make.
  const remaining = paid.holdId ? hold.available + hold.held - charged : hold.available;
  return { charged, credits, remaining, prepaid: outcome?.prepaid ?? null, firstCharges: null };
}
