import type { ListsWrite, UsageCounter } from "../../../durable-objects/account-object";
import { unitOutcome, type UnitOutcome } from "../../../durable-objects/account/unit-outcome";
import type { Settled } from "../credits/credits";
import { listsOf } from "../lists/account-lists";
import type { RateLimitRefusal } from "../../limits/admission";
import { applyPolicy } from "../policy/apply";
import type { Paid, WalkItem, WalkRefusal, WalkRun, WalkState } from "./state";

/** Step 7's outcome: the items as answered and what settling said, or the rate limit the balance read hit. */
export type Settlement<In, Out> =
  | { items: WalkItem<In, Out>[]; settled: Settled; suppressedNow: number }
  | { limited: RateLimitRefusal };

/** Step 8: the items of a settled walk stamped with the account's policy, and the walk's run. */
export async function finish<In, Out>(
  state: WalkState<In, Out>,
  settlement: Settlement<In, Out>,
): Promise<WalkRun<In, Out>> {
  const { product, request, paid } = state;
  if ("limited" in settlement) return refused(state, { reason: "rate_limited", ...settlement.limited });
  const { items, settled, suppressedNow } = settlement;
  await applyPolicy({ env: request.env, product, payer: request.payer, items, defer: request.defer });
  const firstRun = settled.firstCharges;
  return {
    ...counts(state, items),
    // A rerun of queued work reports what the ledger charged the operation the first time (its answers are repeats
    // now).
    creditsUsed: firstRun ? Object.values(firstRun).reduce((sum, n) => sum + n, 0) : settled.charged,
    creditsRemaining: settled.remaining,
    stoppedReason: paid.stopIndex < request.inputs.length ? stoppedBy(state).reason : null,
    refused: null,
    prepaid: settled.prepaid,
    suppressedNow,
  };
}

export const stoppedBy = <In, Out>({ paid }: WalkState<In, Out>) => ({
  reason: paid.limitedBy ?? "insufficient_credits",
});

const counts = <In, Out>(state: WalkState<In, Out>, items: WalkItem<In, Out>[]) => ({
  items,
  requested: state.request.inputs.length,
  processed: items.length,
});

/** Nothing ran and nothing is charged: the hold (if any) is released. */
export async function refused<In, Out>(state: WalkState<In, Out>, refusal: WalkRefusal): Promise<WalkRun<In, Out>> {
  if (state.paid.holdId) await state.credits.release(state.paid.holdId);
  return {
    ...counts(state, []),
    creditsUsed: 0,
    creditsRemaining: 0,
    ...(refusal.reason === "rate_limited"
      ? { stoppedReason: null, refused: null, rateLimited: refusal }
      : { stoppedReason: refusal.reason, refused: refusal.reason }),
    prepaid: null,
  };
}

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
    if ("limited" in settled) return settled;
    return { items: rerun(state, settled) ?? items, settled, suppressedNow: newlySuppressed(state) };
  }
  const settled = await settle(state, { given: request.payer ? repeatWrite(state) : null });
  if ("limited" in settled) return settled;
  const items = buildItems(state, settled.credits);
  const remembered = rememberWrite(state, items);
  const payer = request.payer;
  const writing = () => listsOf(request.env, payer!.accountId).writeLists(product.name, remembered, state.now);
  // History and suppressions follow the settlement; an HTTP request writes them after its answer.
  if (payer && !writesNothing(remembered)) await (request.defer ? request.defer(writing, unwritten) : writing());
  return { items: rerun(state, settled) ?? items, settled, suppressedNow: newlySuppressed(state) };
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
  { paid, request, credits: account }: WalkState<In, Out>,
  finishing: () => Promise<Settled | { limited: RateLimitRefusal }>,
  /** A unit hold's outcome (`answeredOutcome`): the items' credits and the pool after settling. */
  outcome: (UnitOutcome & { prepaid: number }) | null,
): Settled | null {
  const hold = paid.afterHold;
  if (!request.defer || request.operationId || !hold || (!paid.holdId && paid.answered.length)) return null;
  const credits = outcome?.perItem ?? paid.answered.map((a) => a.price.units);
  const charged = outcome?.charge ?? credits.reduce((sum, n) => sum + n, 0);
  const logged = (event: string, err: unknown) =>
    console.error(JSON.stringify({ event, requestId: request.requestId, error: String(err) }));
  const holdId = paid.holdId;
  request.defer(
    () => finishing().catch((err) => logged("deferred_settle_failed", err)),
    // The request ended in an error after all (its answer never reached the caller): nothing is charged or written.
    async () => {
      if (holdId) await account.release(holdId).catch((err) => logged("deferred_release_failed", err));
    },
  );
  // Without a hold (refused, and every value answered from stored rows) only the list writes are left to make.
  const remaining = paid.holdId ? hold.available + hold.held - charged : hold.available;
  return { charged, credits, remaining, prepaid: outcome?.prepaid ?? null, firstCharges: null };
}

/**
 * The answer's items in input order, up to where the walk stopped, each with the credits it used (`credits`, in the
 * order of the fresh answers). `charged`: what an earlier run of the same operation charged by key, which each key's
 * first item reports instead. `settled`: keys settled before a wait, answered wherever they stand (they were charged).
 */
export function buildItems<In, Out>(
  state: WalkState<In, Out>,
  credits: number[],
  charged: Record<string, number> | null = null,
  settled: ReadonlySet<string> = new Set(),
): WalkItem<In, Out>[] {
  const { product, keyOf, uniques, paid } = state;
  const inputs = state.request.inputs;
  const byKey = new Map(uniques.map((u) => [u.key, u]));
  const fresh = new Map(paid.answered.map((a, i) => [a.u.key, { price: a.price, credits: credits[i] ?? 0 }]));
  const seen = new Set<string>();
  const items: WalkItem<In, Out>[] = [];
  for (let index = 0; index < inputs.length; index++) {
    if (index >= paid.stopIndex && !settled.has(keyOf[index]!)) continue;
    const u = byKey.get(keyOf[index]!)!;
    const isFirst = !seen.has(u.key);
    seen.add(u.key);
    const answered = fresh.get(u.key);
    const answer = u.free ? u.free.result : u.looked!.result;
    // One answer serves every spelling of a key (copies, repeats, suppressions): each caller sees its own spelling.
    // An answer made now for this very input (looked up, or answered locally) is already as it was asked.
    const madeForIt = inputs[index] === u.input && (!u.free || u.free.local);
    const data = product.asAsked && !madeForIt ? product.asAsked(answer, inputs[index]!) : answer;
    items.push({
      index,
      input: inputs[index]!,
      data,
      test: u.free?.test ?? false,
      meta: {
        credits_used: isFirst ? (charged ? (charged[u.key] ?? 0) : (answered?.credits ?? 0)) : 0,
        // A stored answer (repeat, suppression) is what it is for every copy; anything answered now is cached for
        // copies.
        cache_hit: u.free && !u.free.local ? u.free.cacheHit : Boolean(u.repeat) || !isFirst,
        suppressed: u.free?.suppressed ?? false,
        refreshed: isFirst && (u.refreshed || Boolean(u.looked?.refreshed)),
        fair_use_billed: isFirst && (answered?.price.fairUseBilled ?? false),
      },
    });
  }
  return items;
}

const freshAnswers = <In, Out>(paid: Paid<In, Out>) =>
  paid.answered
    .filter((a) => !a.u.repeat)
    .map((a) => ({ key: a.u.key, result: a.u.looked!.result as unknown, judged: a.u.judged! }));

/** Starts (or restarts) the 7-day window of every repeatable fresh answer. */
export function repeatWrite<In, Out>({ product, paid }: WalkState<In, Out>): ListsWrite {
  const repeats = freshAnswers(paid).filter((f) => f.judged.repeatable);
  return { keyVersion: product.keys?.version ?? 0, repeats: repeats.map(({ key, result }) => ({ key, result })) };
}

/**
 * How many values this call puts on the account's suppression list (fresh answers the product suppresses, e.g. an
 * undeliverable email verdict): a bulk run reports it, so nothing is suppressed without the run saying so.
 */
export function newlySuppressed<In, Out>({ product, paid, request }: WalkState<In, Out>): number {
  return product.suppressions && request.payer ? freshAnswers(paid).filter((f) => f.judged.suppress).length : 0;
}

/** What else one call learned: suppressions and history. */
export function rememberWrite<In, Out>(state: WalkState<In, Out>, items: WalkItem<In, Out>[]): ListsWrite {
  const { product, request, paid } = state;
  const fresh = freshAnswers(paid);
  const write: ListsWrite = { keyVersion: product.keys?.version ?? 0 };
  const lists = product.suppressions;
  if (lists) {
    const verdicts = fresh.map((f) => ({ key: f.key, result: f.result, suppress: f.judged.suppress }));
    write.suppress = {
      source: "verdict",
      entries: verdicts.flatMap((v) =>
        v.suppress ? [{ key: v.key, reason: v.suppress.reason, result: v.result }] : [],
      ),
    };
    if (!request.options.honorSuppressions) write.unsuppress = verdicts.filter((v) => !v.suppress).map((v) => v.key);
  }
  const history = product.history;
  if (history)
    // Each item's row is read from its own spelling (`asAsked`); test values never reach history.
    write.history = items.flatMap((item) => {
      const row = item.test ? null : history.row(item.data);
      if (!row) return [];
      const { credits_used: creditsUsed, cache_hit: cacheHit, suppressed } = item.meta;
      return [{ ...row, requestId: request.requestId, creditsUsed, cacheHit, suppressed }];
    });
  return write;
}

/** Both writes as one (one transaction of the account's object). */
export const mergeWrites = (a: ListsWrite, b: ListsWrite): ListsWrite => ({ ...a, ...b, repeats: a.repeats ?? [] });

/** A request that ended in an error writes no history or suppressions: its answers never reached the caller. */
export const unwritten = async () => {};

/** Nothing to write (test values only, say): no call is made for it. */
export const writesNothing = (w: ListsWrite) =>
  !w.repeats?.length &&
  !w.suppress?.entries.length &&
  !w.unsuppress?.length &&
  !w.history?.length &&
  !w.feedback?.length;
