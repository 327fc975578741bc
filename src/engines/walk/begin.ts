import { replicaReads } from "../../db/client";
import { creditsFor, openCredits, type Hold, type Payer } from "../credits/credits";
import { readRecalled, recallLists, type Recalled } from "../lists/account-lists";
import { IGNORED, latestByKey } from "../lists/feedback";
import type { WalkProduct, WalkOptions } from "../product";
import type { First, Plan, Unique, WalkRefusal, WalkRequest, WalkState } from "./state";

/** Steps 1 and 2: dedupe by key, then answer what needs no dataset (test values, malformed input). */
export async function planList<In, Out>(product: WalkProduct<In, Out>, inputs: In[]): Promise<Plan<In, Out>> {
  const byKey = new Map<string, Unique<In, Out>>();
  const keyOf = inputs.map((input, index) => {
    const key = product.normalize(input);
    if (!byKey.has(key)) byKey.set(key, { key, index, input, refreshed: false });
    return key;
  });
  const uniques = [...byKey.values()];
  const local = product.local;
  if (local) {
    // Asked of each distinct value's first spelling, in the order of `uniques`: answer i is unique i's.
    const answers = await Promise.all(uniques.map((u) => local(u.input)));
    answers.forEach((answer, i) => {
      if (answer) uniques[i]!.free = { ...freeAnswer(answer.result), test: answer.test, local: true };
    });
  }
  return { uniques, keyOf };
}

const freeAnswer = <Out>(result: Out) => ({ result, cacheHit: false, suppressed: false, test: false, local: false });

/** What reading the account's rows needs to know: whose rows, of which product, for which call. */
export interface RecallScope<In, Out> {
  env: Env;
  product: WalkProduct<In, Out>;
  options: WalkOptions;
  now: number;
}

/** Steps 3 and 4 without a hold: the account's repeats and suppressions (when honoured) answer what they can, free. */
export async function recallStored<In, Out>(
  scope: RecallScope<In, Out> & {
    payer: Payer | null;
    uniques: Unique<In, Out>[];
    /** After waiting on a concurrent walk: a repeat it started (not the one first seen) counts whatever the options. */
    waited?: boolean;
  },
): Promise<void> {
  const open = scope.uniques.filter((u) => !u.free);
  if (!scope.payer || !open.length) return;
  // One call to the account's object reads both (its lists live there).
  const recalled = await recallLists(scope.env, {
    accountId: scope.payer.accountId,
    product: scope.product.name,
    keys: open.map((u) => u.key),
    now: scope.now,
    want: listsWanted(scope.product, scope.options),
    rekeyed: scope.product.keys,
  });
  applyRecalled(scope, open, recalled, scope.waited);
}

/**
 * What a walk reads of the account's lists: repeats always, suppressions when the call honours them, and with a
 * product whose key function changed (`keys`), the rows of older versions too (re-keyed as they are read).
 */
export const listsWanted = <In, Out>(product: WalkProduct<In, Out>, options: WalkOptions) => ({
  repeats: true,
  suppressions: Boolean(options.honorSuppressions && product.suppressions),
  ...(product.keys ? { staleBelow: product.keys.version } : {}),
});

/** Answers free what the account's stored rows answer: a suppressed value, or a repeat young enough. */
export function applyRecalled<In, Out>(
  scope: RecallScope<In, Out>,
  open: Unique<In, Out>[],
  { repeats, suppressed }: Recalled,
  waited = false,
) {
  const { env, product, options, now } = scope;
  const tooOld = (u: Unique<In, Out>, at: number) =>
    !(waited && at !== u.repeatAt) &&
    (options.refresh || (options.maxAgeSeconds !== null && now - at > options.maxAgeSeconds * 1000));
  for (const u of open) {
    const stored = suppressed.get(u.key);
    const repeat = repeats.get(u.key);
    if (!waited) u.repeatAt = repeat?.createdAt;
    u.markerAt = repeat?.createdAt ?? 0;
    if (stored !== undefined) u.free = { ...freeAnswer(stored as Out), suppressed: true };
    else if (repeat && !tooOld(u, repeat.createdAt)) {
      u.refreshed = false;
      const mode =
        typeof product.repeats === "function"
          ? product.repeats(repeat.result as Out, u.input, options, env)
          : product.repeats;
      if (mode === "renew") u.refreshed = true;
      else if (mode === "stored") u.free = { ...freeAnswer(repeat.result as Out), cacheHit: true };
      else u.repeat = true;
    } else if (repeat) u.refreshed = true;
  }
}

/** What the walk's first step hands the next: the state, and the first hold (or the rate limit that refused it). */
export type Begun<In, Out> =
  | { state: WalkState<In, Out>; first: First | null }
  | { state: WalkState<In, Out>; limited: Extract<WalkRefusal, { reason: "rate_limited" }> };

/**
 * Steps 1 to 5: the state every later step takes (the list deduped, test values answered), then, in one call to the
 * account's object, the values' repeat and suppression rows and, in the same synchronous step, a hold (claiming) for
 * the values those rows leave to pay for: the first wave (with `share`, at most half of what is available, never less
 * than one unit). A single lookup, or a batch whose first wave covers its list, makes this one call before its
 * answer. When the walk reads the rows differently from the object (a repeat its options renew, a row of an older
 * key), the wave's hold resizes (src/engines/walk/pay.ts); values held for and answered free are settled at 0 with
 * the rest. The hold is returned for the first wave; a rate limit the object counts is returned instead.
 */
export async function begin<In, Out>(product: WalkProduct<In, Out>, request: WalkRequest<In>): Promise<Begun<In, Out>> {
  const now = request.now ?? Date.now();
  const { env, payer, options } = request;
  const plan = await planList(product, request.inputs);
  const open = plan.uniques.filter((u) => !u.free);
  if (!payer || !open.length) {
    const state = stateOf({ product, request, now, plan, credits: creditsFor(env, payer) });
    await recallStored({ env, product, options, now, payer: null, uniques: state.uniques });
    return { state, first: null };
  }
  const keys = open.map((u) => u.key);
  const each = product.holdUnits?.(options) ?? 1;
  const feedback = feedbackWant(product, open, now);
  const { credits, begun } = await openCredits(
    env,
    payer,
    {
      requestId: request.requestId,
      product: product.name,
      units: each,
      unitsPerCredit: product.unitsPerCredit,
      share: (typeof product.cost === "function" ? product.cost(options) : product.cost) === "remote",
      claims: keys.map((key) => ({ key, units: each })),
    },
    {
      product: product.name,
      keys,
      at: now,
      want: { ...listsWanted(product, options), ...feedback },
      free: { repeatsAfter: freeRepeatsAfter(product, options, now) },
    },
  );
  const state = stateOf({ product, request, now, plan, credits });
  if ("limited" in begun) return { state, limited: { reason: "rate_limited", ...begun.limited } };
  if (feedback.feedback && begun.recall.feedback)
    state.ctx.feedback = { keys: new Set(feedback.feedback.keys), latest: latestByKey(begun.recall.feedback) };
  keepHold(state, begun.hold);
  const found = { accountId: payer.accountId, product: product.name, found: begun.recall, keys, rekeyed: product.keys };
  try {
    // Reading the rows and the product's own say on a repeat (`product.repeats`) may throw: the hold is let go then.
    applyRecalled({ env, product, options, now }, open, await readRecalled(env, found));
  } catch (err) {
    if (state.paid.holdId) await state.credits.release(state.paid.holdId);
    throw err;
  }
  return { state, first: { hold: begun.hold, asked: begun.asked } };
}

/** The state every later step takes: the list as planned, nothing paid yet. */
function stateOf<In, Out>(
  start: Pick<WalkState<In, Out>, "product" | "request" | "now" | "credits"> & { plan: Plan<In, Out> },
): WalkState<In, Out> {
  const { plan, ...walked } = start;
  const { request, now } = walked;
  return {
    ...plan,
    ...walked,
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

/** What the first hold said, kept for the answer's balance; the hold itself goes to the first wave. */
function keepHold<In, Out>({ paid }: WalkState<In, Out>, hold: Hold) {
  if (hold.ok) {
    paid.holdId = hold.id;
    paid.allowance.left = hold.fairUseRemaining;
    paid.afterHold = { held: hold.held, available: hold.available };
    paid.unitHold = hold.unitHold;
  } else if (hold.reason === "insufficient_credits" && hold.available !== undefined)
    // Refused for want of credits: if a stored row answers the value, this is the balance its answer reports.
    paid.afterHold = { held: 0, available: hold.available };
}

/**
 * The start of the repeat window inside which a value needs no hold: its repeat is free, whether answered from the
 * stored answer (`stored`) or looked up again at no charge (`fresh`: holding for it would make IP buy a credit for a
 * free answer, and settle before answering). A product that decides per repeat (it may renew) is held for, and nothing
 * is free with `refresh`.
 */
function freeRepeatsAfter<In, Out>(product: WalkProduct<In, Out>, options: WalkOptions, now: number): number | null {
  if (typeof product.repeats === "function" || options.refresh) return null;
  return options.maxAgeSeconds === null ? 0 : now - options.maxAgeSeconds * 1000;
}

/** The feedback the values' answers report, read by the first call: on the keys the product names (default: theirs). */
function feedbackWant<In, Out>(product: WalkProduct<In, Out>, open: Unique<In, Out>[], now: number) {
  const reads = product.readsFeedback;
  if (!reads) return {};
  const keys = reads.keysOf ? [...new Set(open.flatMap((u) => reads.keysOf!(u.input)))] : open.map((u) => u.key);
  return { feedback: { since: now - reads.windowMs, ignored: IGNORED, product: reads.product, keys } };
}
