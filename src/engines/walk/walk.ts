import type { WalkProduct } from "../product";
import { begin } from "./begin";
import { payAll } from "./pay";
import { settleAfterSetDown } from "./set-down";
import { finish, refused, settleAndRemember, stoppedBy } from "./settle";
import type { WalkRequest, WalkRun, WalkState } from "./state";

export type { WalkItem, WalkRequest, WalkRun } from "./state";

/**
 * The paid walk, the same for every product and every path (single, batch, browser, bulk row, monitor run,
 * re-check): dedupe -> test values -> repeats -> suppressions -> reserve -> look up -> settle -> stop, each step taking
 * the state and returning the next, stopping where credits or the key's daily cap run out. Outcomes only: a refusal
 * (the balance, the key's daily cap, a rate limit the account's object counted) comes back as `refused` or
 * `rateLimited`, and surfaces turn it into their own errors.
 */
export async function walk<In, Out>(
  product: WalkProduct<In, Out>,
  request: WalkRequest<In>,
): Promise<WalkRun<In, Out>> {
  const begun = await begin(product, request);
  if ("limited" in begun) return refused(begun.state, begun.limited);
  const state = await payAll(begun.state, begun.first).catch(async (err) => {
    if (begun.state.paid.holdId) await begun.state.credits.release(begun.state.paid.holdId);
    throw err;
  });
  const { paid } = stop(state);
  // A part settled before a wait was charged: it is answered, whatever the rest of the walk could pay for.
  if (paid.stopIndex === 0 && !paid.setDown) return refused(state, stoppedBy(state));
  return finish(state, paid.setDown ? await settleAfterSetDown(state) : await settleAndRemember(state));
}

/**
 * Values answered past where the walk stopped (a wave after a value that waited and then could not be paid) are
 * neither returned nor charged.
 */
function stop<In, Out>(state: WalkState<In, Out>): WalkState<In, Out> {
  const { paid } = state;
  paid.answered = paid.answered.filter((a) => a.u.index < paid.stopIndex).sort((a, b) => a.u.index - b.u.index);
  return state;
}
