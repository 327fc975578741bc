import type { Settled } from "../credits/credits";
import { listsOf } from "../lists/account-lists";
import {
  buildItems,
  newlySuppressed,
  rememberWrite,
  repeatWrite,
  type Settlement,
  settle,
  unwritten,
  usageOf,
  writesNothing,
} from "./settle";
import type { WalkState } from "./state";

/**
 * Before a walk waits on a concurrent walk's claims: it settles the answers it has (their charges and repeat markers,
 * in one step that also ends its claims), or releases a hold that answered nothing, so while it waits it holds neither
 * claims another walk may be waiting for nor credits another request could use. A hold of nothing is kept (the
 * walk's next wave resizes it). The settled part is kept in `paid.setDown`; the walk goes on with a new hold.
 */
export async function setDown<In, Out>(state: WalkState<In, Out>): Promise<void> {
  const { product, request, paid, credits } = state;
  if (!paid.holdId) return;
  const answered = paid.answered.filter((a) => a.u.index < paid.stopIndex);
  if (!answered.length && !paid.afterHold?.held) return;
  const earlier = paid.setDown ?? { answered: [], credits: [], charged: 0, parts: 0 };
  if (answered.length) {
    // Queued work settles each part under its own operation id: the last settlement keeps the operation's own.
    const operation = request.operationId
      ? { operationId: `${request.operationId}:part${earlier.parts + 1}`, keys: answered.map((a) => a.u.key) }
      : {};
    const write = repeatWrite({ ...state, paid: { ...paid, answered } });
    const settled = await credits.settle(paid.holdId, {
      units: answered.map((a) => a.price.units),
      usage: usageOf(answered),
      ...operation,
      ...(writesNothing(write) ? {} : { lists: { product: product.name, write, at: state.now } }),
    });
    paid.setDown = {
      answered: [...earlier.answered, ...answered],
      credits: [...earlier.credits, ...settled.credits],
      charged: earlier.charged + settled.charged,
      parts: earlier.parts + 1,
    };
  } else await credits.release(paid.holdId);
  paid.answered = [];
  paid.spent = 0;
  paid.holdId = null;
  paid.unitHold = undefined;
  paid.afterHold = undefined;
}

/**
 * Step 7 for a walk that set down a part before waiting: settles what it answered since (with those answers' repeat
 * markers), then reports every answer, the part's with the charges its settlement made, and writes history and
 * suppressions of them all. Settled before the answer (the walk waited anyway). A value of the part past where the
 * walk then stopped (a waited value it could not pay for after all) is answered too: it was charged.
 */
export async function settleAfterSetDown<In, Out>(state: WalkState<In, Out>): Promise<Settlement<In, Out>> {
  const { product, request, paid } = state;
  const part = paid.setDown!;
  const settled = await settle(state, { given: request.payer ? repeatWrite(state) : null });
  if ("limited" in settled) return settled;
  paid.answered = [...part.answered, ...paid.answered];
  const credits = [...part.credits, ...settled.credits];
  const items = buildItems(state, credits, null, new Set(part.answered.map((a) => a.u.key)));
  const remembered = rememberWrite(state, items);
  const payer = request.payer;
  const writing = () => listsOf(request.env, payer!.accountId).writeLists(product.name, remembered, state.now);
  if (payer && !writesNothing(remembered)) await (request.defer ? request.defer(writing, unwritten) : writing());
  const all: Settled = { ...settled, charged: part.charged + settled.charged, credits };
  return { items, settled: all, suppressedNow: newlySuppressed(state) };
}
