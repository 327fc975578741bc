import { payLocal, payRemote } from "./pay";
import { recallStored } from "./plan";
import { setDown } from "./set-down";
import type { Unique, WalkState } from "./state";

/**
 * The longest a walk waits for a concurrent walk's answer to the same value: past the longest lookup (60 s). A walk
 * waits only for walks that are looking up (a walk sets down what it holds before it waits), so a wait ends with the
 * other walk's lookups; this bounds one whose isolate died mid-walk until the alarm releases its claims.
 */
export const CLAIM_WAIT_MS = 65_000;

/** Waits on concurrent walks at most this many times; then it pays for what is left without claiming. */
const CLAIM_ROUNDS = 3;

/**
 * Steps 5 and 6: pays for the fresh values and looks them up; values a concurrent walk of the same account is
 * answering (claimed, `busy`) wait for that answer and are then read as repeats, free. Before it waits, the walk sets
 * down what it holds (settles its answers so far: their charges, repeat markers and claims), so it never waits holding
 * claims another walk waits for, nor credits another request could use. After the wait it walks again what is still
 * unanswered, in order, on a new hold (the other walk failed, its answer starts no repeat window, or credits it held
 * came back); after a wait that timed out, or a third round, without claiming.
 */
export async function payAll<In, Out>(state: WalkState<In, Out>): Promise<WalkState<In, Out>> {
  const { product, request, credits, paid } = state;
  if (paid.limited) return state;
  const cost = typeof product.cost === "function" ? product.cost(request.options) : product.cost;
  const pay = cost === "remote" ? payRemote : payLocal;
  let waiting = await pay(
    state,
    state.uniques.filter((u) => !u.free),
    true,
  );
  for (let round = 1; waiting.length && request.payer; round++) {
    await setDown(state);
    const started = Date.now();
    await credits.awaitClaims(
      product.name,
      waiting.map((u) => u.key),
      CLAIM_WAIT_MS,
    );
    const claim = round < CLAIM_ROUNDS && Date.now() - started < CLAIM_WAIT_MS;
    const { env } = state.ctx;
    const left = unanswered(state);
    const scope = { env, product, options: request.options, now: state.now };
    await recallStored({ ...scope, payer: request.payer, uniques: left, waited: true });
    // The walk starts again where its values are still open: where it stopped may have been credits others held.
    paid.stopIndex = request.inputs.length;
    paid.limitedBy = null;
    const open = left.filter((u) => !u.free);
    waiting = open.length ? await pay(state, open, claim) : [];
  }
  return state;
}

/** The values neither answered free nor by this walk (now or in a part it settled before waiting), in order. */
function unanswered<In, Out>({ uniques, paid }: WalkState<In, Out>): Unique<In, Out>[] {
  const done = new Set([...paid.answered, ...(paid.setDown?.answered ?? [])].map((a) => a.u.key));
  return uniques.filter((u) => !u.free && !done.has(u.key));
}
