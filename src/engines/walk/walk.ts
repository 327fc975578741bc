import { replicaReads } from "../../db/client";
import { creditsFor } from "../credits/credits";
import { applyPolicy } from "../policy/apply";
import type { WalkProduct } from "../product";
import { recallAndHold } from "./begin";
import { planList } from "./begin";
import { payAll } from "./pay";
import { settleAfterSetDown } from "./set-down";
import { newlySuppressed, settleAndRemember } from "./settle";
import type { WalkItem, WalkRefusal, WalkRequest, WalkRun, WalkState } from "./state";

export type { WalkItem, WalkRequest, WalkRun } from "./state";

/**
 * The paid walk, the same for every product and every path (single, batch, browser, bulk row, monitor run,
 * re-check): dedupe -> test values -> repeats -> suppressions -> reserve -> look up -> settle -> stop, one state object
 * carried from step to step, stopping where credits or the key's daily cap run out. Outcomes only: a refusal (the
 * balance, the key's daily cap, a rate limit the account's object counted) comes back as `refused`, and surfaces turn
 * it into their own errors.
 */
export async function walk<In, Out>(
  product: WalkProduct<In, Out>,
  request: WalkRequest<In>,
): Promise<WalkRun<In, Out>> {
  const state = await start(product, request);
  try {
    await recallAndHold(state);
    await payAll(state);
  } catch (err) {
    if (state.paid.holdId) await state.credits.release(state.paid.holdId);
    throw err;
  }
  stop(state);
  // A part settled before a wait was charged: it is answered, whatever the rest of the walk could pay for.
  const refusal = state.paid.limited ?? (state.paid.stopIndex === 0 && !state.paid.setDown ? stoppedBy(state) : null);
  if (refusal) return refused(state, refusal);
  const settlement = state.paid.setDown ? await settleAfterSetDown(state) : await settleAndRemember(state);
  if ("limited" in settlement) return refused(state, { reason: "rate_limited", ...settlement.limited });
  const { items, settled } = settlement;
  await applyPolicy({ env: request.env, product, payer: request.payer, items, defer: request.defer });
  const firstRun = settled.firstCharges;
  return {
    ...counts(state, items),
    // A rerun of queued work reports what the ledger charged the operation the first time (its answers are repeats
    // now).
    creditsUsed: firstRun ? Object.values(firstRun).reduce((sum, n) => sum + n, 0) : settled.charged,
    creditsRemaining: settled.remaining,
    stoppedReason: state.paid.stopIndex < request.inputs.length ? stoppedBy(state).reason : null,
    refused: null,
    prepaid: settled.prepaid,
    suppressedNow: newlySuppressed(state),
  };
}

/** Steps 1 and 2 (dedupe, test values), and the state every later step takes and returns. */
async function start<In, Out>(product: WalkProduct<In, Out>, request: WalkRequest<In>): Promise<WalkState<In, Out>> {
  const now = request.now ?? Date.now();
  const plan = await planList(product, request.inputs);
  return {
    ...plan,
    product,
    request,
    now,
    credits: creditsFor(request.env, request.payer),
    // The product's own reads (datasets, the shared mailbox answers) may come from a read replica near the caller.
    ctx: {
      env: replicaReads(request.env),
      now,
      accountId: request.payer?.accountId ?? null,
      ...(request.defer ? { defer: request.defer } : {}),
    },
    paid: {
      answered: [],
      stopIndex: request.inputs.length,
      limitedBy: null,
      holdId: null,
      spent: 0,
      allowance: { left: 0 },
    },
  };
}

/**
 * Values answered past where the walk stopped (a wave after a value that waited and then could not be paid) are
 * neither returned nor charged.
 */
function stop<In, Out>({ paid }: WalkState<In, Out>) {
  paid.answered = paid.answered.filter((a) => a.u.index < paid.stopIndex).sort((a, b) => a.u.index - b.u.index);
}

const stoppedBy = <In, Out>({ paid }: WalkState<In, Out>) => ({ reason: paid.limitedBy ?? "insufficient_credits" });

const counts = <In, Out>(state: WalkState<In, Out>, items: WalkItem<In, Out>[]) => ({
  items,
  requested: state.request.inputs.length,
  processed: items.length,
});

/** Nothing ran and nothing is charged: the hold (if any) is released. */
async function refused<In, Out>(state: WalkState<In, Out>, refusal: WalkRefusal): Promise<WalkRun<In, Out>> {
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
