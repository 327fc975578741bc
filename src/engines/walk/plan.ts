import type { Payer } from "../credits/credits";
import { recallLists, type Recalled } from "../lists/account-lists";
import type { WalkProduct, WalkOptions } from "../product";
import type { Plan, Unique } from "./state";

export type { Plan, Unique } from "./state";

/** Steps 1 and 2: dedupe by key, then answer what needs no dataset (test values, malformed input). */
export async function planList<In, Out>(product: WalkProduct<In, Out>, inputs: In[]): Promise<Plan<In, Out>> {
  const byKey = new Map<string, Unique<In, Out>>();
  const keyOf = inputs.map((input, index) => {
    const key = product.normalize(input);
    if (!byKey.has(key)) byKey.set(key, { key, index, input, refreshed: false });
    return key;
  });
  const uniques = [...byKey.values()];
  if (product.local) {
    const locals = await Promise.all(uniques.map((u) => product.local!(u.input)));
    locals.forEach((answer, i) => {
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

/** What a walk reads of the account's lists: repeats always, suppressions when the call honours them. */
export const listsWanted = <In, Out>(product: WalkProduct<In, Out>, options: WalkOptions) => ({
  repeats: true,
  suppressions: Boolean(options.honorSuppressions && product.suppressions),
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
