import type { ListsWrite, UsageCounter } from "../../../durable-objects/account-object";
import { unitOutcome, type UnitOutcome } from "../../../durable-objects/account/unit-outcome";
import type { Settled } from "../credits/credits";
import { listsOf } from "../lists/account-lists";
import type { RateLimitRefusal } from "../../limits/admission";
import { buildItems } from "./items";
import { mergeWrites, rememberWrite, repeatWrite, writesNothing } from "./remember";
import type { Paid, WalkItem, WalkState } from "./state";

/** Step 7's outcome: the items as answered and what settling said, or the rate limit the balance read hit. */
export type Settlement<In, Out> = { items: WalkItem<In, Out>[]; settled: Settled } | { limited: RateLimitRefusal };

/**
 * Step 7: settles the hold and remembers the answers. Their repeat markers, history and suppressions go to the
 * account's object with the settlement, in one call and one synchronous step: the markers are there before the claims
 * end (a walk that waited on them reads them next). With one unit per credit every item's charge is known before
 * settling; with several (prepaid units) it is when the walk's one hold decides it (`unitOutcome`), and the settlement
 * applies exactly that (`asAnswered`). Otherwise the settlement says which item bought a credit, and history follows
 * it in a second write.
 */
export async function settleAndRemember<In, Out>(state: WalkState<In, Out>): Promise<Settlement<In, Out>> {
  const { product, request, paid } = state;
  const units = paid.answered.map((a) => (request.payer ? a.price.units : 0));
  const outcome = product.unitsPerCredit > 1 ? answeredOutcome(state, units) : null;
  if (product.unitsPerCredit === 1 || outcome) {
    const items = buildItems(state, outcome?.perItem ?? units);
    const write = request.payer ? mergeWrites(repeatWrite(state), rememberWrite(state, items)) : null;
    const finishing = () => settle(state, { given: write, asAnswered: outcome !== null });
    const settled = deferred(state, finishing, outcome) ?? (await finishing());
    return "limited" in settled ? settled : { items: rerun(state, settled) ?? items, settled };
  }
  const settled = await settle(state, { given: request.payer ? repeatWrite(state) : null });
  if ("limited" in settled) return settled;
  const items = buildItems(state, settled.credits);
  const remembered = rememberWrite(state, items);
  const payer = request.payer;
  const writing = () => listsOf(request.env, payer!.accountId).writeLists(product.name, remembered, state.now);
  // History and suppressions follow the settlement; an HTTP request writes them after its answer.
  if (payer && !writesNothing(remembered)) await (request.defer ? request.defer(writing) : writing());
  return { items: rerun(state, settled) ?? items, settled };
}

/**
 * Queued work run again (its consumer died after settling): the settlement says what the operation was charged the
 * first time, and the items report that; its answers are repeats now and would read as free.
 */
const rerun = <In, Out>(state: WalkState<In, Out>, settled: Settled) =>
  settled.firstCharges ? buildItems(state, settled.credits, settled.firstCharges) : null;

/** What a walk's answers used of the fair-use window and the product's counters, as its settlement counts them. */
export function usageOf<In, Out>(answered: Paid<In, Out>["answered"]): Partial<Record<UsageCounter, number>> {
  const usage: Partial<Record<UsageCounter, number>> = {};
  for (const { price } of answered) {
    if (price.counter && (price.fairUse || price.units > 0)) usage[price.counter] = (usage[price.counter] ?? 0) + 1;
  }
  return usage;
}

/** Settles the hold with the list writes (one call), or, without a hold, writes them beside the balance read. */
export async function settle<In, Out>(
  state: WalkState<In, Out>,
  { given, asAnswered = false }: { given: ListsWrite | null; asAnswered?: boolean },
): Promise<Settled | { limited: RateLimitRefusal }> {
  const { product, request, paid, credits, now } = state;
  const write = given && !writesNothing(given) ? given : null;
  if (!paid.holdId) {
    const unitsOf = product.unitsPerCredit > 1 ? product.name : undefined;
    const [left, firstCharges] = await Promise.all([
      credits.remaining(unitsOf),
      request.operationId ? credits.operationCharges(request.operationId) : null,
      write && request.payer
        ? listsOf(request.env, request.payer.accountId).writeLists(product.name, write, now)
        : null,
    ]);
    if ("limited" in left) return left;
    return {
      charged: 0,
      credits: paid.answered.map(() => 0),
      remaining: left.credits,
      prepaid: left.prepaid,
      firstCharges,
    };
  }
  const usage = usageOf(paid.answered);
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
  { paid, request }: WalkState<In, Out>,
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
  { paid, request }: WalkState<In, Out>,
  finishing: () => Promise<Settled | { limited: RateLimitRefusal }>,
  /** A unit hold's outcome (`answeredOutcome`): the items' credits and the pool after settling. */
  outcome: (UnitOutcome & { prepaid: number }) | null,
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
