import type { Hold, StopReason } from "../credits/credits";
import { timeProduct } from "../../platform/trace";
import type { WalkProduct } from "../product";
import { recallStored } from "./begin";
import { setDown } from "./set-down";
import type { First, Judged, Paid, Priced, Unique, WalkState } from "./state";

/** One wave's ask: the values' claims, whether it leaves room for others (`share`), whether it claims at all. */
interface WaveAsk {
  claims: { key: string; units: number }[];
  share: boolean;
  claim: boolean;
}

/**
 * A wave's hold: the walk's first (`first`, handed to the first wave only), or its hold resized; `claim` off once
 * waiting on others has run its course.
 */
async function holdFor<In, Out>(
  state: WalkState<In, Out>,
  { claims, share, claim }: WaveAsk,
  first: First | null,
): Promise<Hold> {
  const { product, credits, paid } = state;
  const units = claims.reduce((sum, c) => sum + c.units, 0);
  const begun = first?.hold;
  const asked = new Set(first?.asked ?? []);
  // The first call's hold serves the first wave when it holds what the wave asks for; a remote wave (`share`) also
  // takes it when it holds only part of the list (the wave is what it claimed). Else the wave resizes it, or, if it
  // was refused, asks again (what the first call guessed may not be what the answer costs), unless it asked for this
  // very wave (a remote wave's units are the ones asked, so the same ask is refused the same way).
  const covers = (c: { key: string }) =>
    Boolean(begun?.ok && (begun.claimed.includes(c.key) || begun.busy.includes(c.key)));
  if (begun?.ok && begun.units >= units && claims.every(covers)) return begun;
  if (begun?.ok && share && claims.some((c) => begun.claimed.includes(c.key))) return begun;
  if (begun && !begun.ok && claims.every((c) => begun.busy.includes(c.key) || (share && asked.has(c.key))))
    return begun;
  const claimed = claim ? { claims } : {};
  // A resized hold's outcome is no longer the first hold's: the walk settles before answering.
  if (paid.holdId !== null) paid.unitHold = undefined;
  const hold =
    paid.holdId !== null
      ? await credits.resize(paid.holdId, { product: product.name, spent: paid.spent, units, share, ...claimed })
      : await firstHold();
  if (hold.ok) paid.afterHold = { held: hold.held, available: hold.available };
  return hold;
  async function firstHold() {
    const hold = await credits.hold({
      requestId: state.request.requestId,
      product: product.name,
      units,
      unitsPerCredit: product.unitsPerCredit,
      share,
      ...claimed,
    });
    if (hold.ok) {
      paid.holdId = hold.id;
      paid.allowance.left = hold.fairUseRemaining;
      paid.unitHold = hold.unitHold;
    }
    return hold;
  }
}

/** The repeat marker a claim's walk read (only when it read the account's repeats: there is a payer). */
const seenOf = <In, Out>(u: Unique<In, Out>) => (u.markerAt === undefined ? {} : { seen: u.markerAt });

/** Records where the walk stops (the earliest position that could not be paid) and why. */
function stopAt<In, Out>(paid: Paid<In, Out>, index: number, reason: StopReason) {
  if (index >= paid.stopIndex) return;
  paid.stopIndex = index;
  paid.limitedBy = reason;
}

/** Applies the fair-use allowance to a product's price: free while it lasts. A repeat answered fresh costs nothing. */
function applyPrice<In, Out>(u: Unique<In, Out>, allowance: { left: number }): Priced {
  if (u.repeat) return { units: 0, fairUseBilled: false, fairUse: false };
  const price = u.judged!.price;
  const counter = price.counter ? { counter: price.counter } : {};
  if (!price.fairUse) return { units: price.units, fairUseBilled: false, fairUse: false, ...counter };
  if (allowance.left > 0) {
    allowance.left -= 1;
    return { units: 0, fairUseBilled: false, fairUse: true, ...counter };
  }
  return { units: price.units, fairUseBilled: price.units > 0, fairUse: true, ...counter };
}

/** What the walk asks the product of a fresh answer, in one go: its price, its repeat window, its suppression. */
const judge = <In, Out>(product: WalkProduct<In, Out>, result: Out): Judged => ({
  price: product.price(result),
  repeatable: product.repeatable(result),
  suppress: product.suppressions?.suppresses(result) ?? null,
});

/** Looks the wave up (fresh answers, in order) and has the product judge each answer. */
async function lookUp<In, Out>({ product, ctx, request }: WalkState<In, Out>, wave: Unique<In, Out>[]) {
  const inputs = wave.map((u) => u.input);
  const looked = await timeProduct(() => product.lookup(ctx, inputs, request.options));
  wave.forEach((u, i) => ((u.looked = looked[i]!), (u.judged = judge(product, u.looked.result))));
}

/**
 * Remote products: each wave holds one unit per value it looks up, and the hold (one reservation for the whole walk)
 * is resized between waves to what answers used plus the next wave. The credits object grants a wave at most half of
 * what is available (`share`), so a long list never shuts out a concurrent request while its lookups are in flight,
 * and no handshake is made that nobody can pay for. Returns the values a concurrent walk is answering (busy).
 */
export async function payRemote<In, Out>(
  state: WalkState<In, Out>,
  fresh: Unique<In, Out>[],
  claim: boolean,
  given: First | null,
): Promise<Unique<In, Out>[]> {
  const { product, paid } = state;
  let first = given;
  const deferred: Unique<In, Out>[] = [];
  const each = product.holdUnits?.(state.request.options) ?? 1;
  let pending = [...fresh];
  while (pending.length) {
    const claims = pending.map((u) => ({ key: u.key, units: each, ...seenOf(u) }));
    const hold = await holdFor(state, { claims, share: true, claim }, first);
    first = null;
    const busy = new Set(hold.busy);
    deferred.push(...pending.filter((u) => busy.has(u.key)));
    pending = pending.filter((u) => !busy.has(u.key));
    if (!pending.length) break;
    // With claims, the wave is what the hold claimed (the first call's hold may claim values the walk then read as
    // repeats, and not claim one it reads as due: those wait for the next wave).
    const claimed = new Set(hold.ok && claim ? hold.claimed : []);
    const units = hold.ok
      ? claim
        ? pending.filter((u) => claimed.has(u.key)).length
        : Math.floor(hold.units / each)
      : 0;
    if (units <= 0) {
      stopAt(paid, pending[0]!.index, hold.ok ? (hold.limitedBy ?? "insufficient_credits") : hold.reason);
      break;
    }
    const wave = claim ? pending.filter((u) => claimed.has(u.key)) : pending.splice(0, units);
    if (claim) pending = pending.filter((u) => !claimed.has(u.key));
    await lookUp(state, wave);
    for (const u of wave) {
      const price = applyPrice(u, paid.allowance);
      paid.spent += price.units;
      paid.answered.push({ u, price });
    }
  }
  return deferred;
}

/**
 * Local products: every fresh value is looked up first (a dataset read), then exactly the units the answers cost are
 * held (claiming the priced values), and the list is answered in order up to where the held units run out. Returns
 * the values a concurrent walk is answering (busy).
 */
export async function payLocal<In, Out>(
  state: WalkState<In, Out>,
  fresh: Unique<In, Out>[],
  claim: boolean,
  first: First | null,
): Promise<Unique<In, Out>[]> {
  const { paid } = state;
  if (!fresh.length) return [];
  await lookUp(
    state,
    fresh.filter((u) => !u.looked),
  );
  const claims = fresh
    .map((u) => ({ key: u.key, units: applyPrice(u, { left: 0 }).units, ...seenOf(u) }))
    .filter((c) => c.units > 0);
  let budget = Number.POSITIVE_INFINITY;
  let busy = new Set<string>();
  let reason: StopReason = "insufficient_credits";
  if (claims.length) {
    const hold = await holdFor(state, { claims, share: false, claim }, first);
    busy = new Set(hold.busy);
    budget = hold.ok ? hold.units : 0;
    reason = hold.ok ? (hold.limitedBy ?? reason) : hold.reason;
  }
  for (const u of fresh) {
    if (busy.has(u.key)) continue;
    const price = applyPrice(u, paid.allowance);
    if (price.units > budget) {
      stopAt(paid, u.index, reason);
      break;
    }
    budget -= price.units;
    paid.spent += price.units;
    paid.answered.push({ u, price });
  }
  return fresh.filter((u) => busy.has(u.key));
}

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
export async function payAll<In, Out>(state: WalkState<In, Out>, first: First | null): Promise<WalkState<In, Out>> {
  const { product, request, credits, paid } = state;
  const cost = typeof product.cost === "function" ? product.cost(request.options) : product.cost;
  const pay = cost === "remote" ? payRemote : payLocal;
  let waiting = await pay(
    state,
    state.uniques.filter((u) => !u.free),
    true,
    first,
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
    waiting = open.length ? await pay(state, open, claim, null) : [];
  }
  return state;
}

/** The values neither answered free nor by this walk (now or in a part it settled before waiting), in order. */
function unanswered<In, Out>({ uniques, paid }: WalkState<In, Out>): Unique<In, Out>[] {
  const done = new Set([...paid.answered, ...(paid.setDown?.answered ?? [])].map((a) => a.u.key));
  return uniques.filter((u) => !u.free && !done.has(u.key));
}
