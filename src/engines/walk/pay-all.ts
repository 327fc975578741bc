import { payLocal, payRemote } from "./pay";
import { recallStored } from "./plan";
import type { WalkState } from "./state";

/** The longest a walk waits for a concurrent walk's answer to the same value: past the longest lookup (60 s). */
export const CLAIM_WAIT_MS = 65_000;

/** Waits on concurrent walks at most this many times; then it pays for what is left without claiming. */
const CLAIM_ROUNDS = 3;

/**
 * Steps 5 and 6: pays for the fresh values and looks them up; values a concurrent walk of the same account is
 * answering (claimed, `busy`) wait for that answer and are then read as repeats, free. What is still unanswered then
 * (the other walk failed, or its answer starts no repeat window) is paid for here; after a wait that timed out, or a
 * third round, without claiming.
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
    const started = Date.now();
    await credits.awaitClaims(
      product.name,
      waiting.map((u) => u.key),
      CLAIM_WAIT_MS,
    );
    const claim = round < CLAIM_ROUNDS && Date.now() - started < CLAIM_WAIT_MS;
    const { env } = state.ctx;
    const scope = { env, product, options: request.options, now: state.now };
    await recallStored({ ...scope, payer: request.payer, uniques: waiting, waited: true });
    const open = waiting.filter((u) => !u.free && u.index < paid.stopIndex);
    waiting = open.length ? await pay(state, open, claim) : [];
  }
  return state;
}
