import type { Database } from "../../db/client";
import type { Payer } from "../credits/credits";
import { recallLists, type Recalled } from "../lists/account-lists";
import type { Looked, Product, WalkOptions } from "../product";

/** One distinct value of a list (by the product's key), and what is known about it before any credit is spent. */
export interface Unique<In, Out> {
  key: string;
  /** Position of its first occurrence. */
  index: number;
  input: In;
  /** Answered for free: a local answer (test value, malformed), a repeat or a suppressed value. */
  free?: { result: Out; cacheHit: boolean; suppressed: boolean; test: boolean; local: boolean };
  /** A repeat of a product that answers repeats fresh: looked up again, never charged. */
  repeat?: boolean;
  /** The answer replaces an earlier one (a repeat past `max_age`, or `refresh`). */
  refreshed: boolean;
  /** When the repeat first read for it was answered, if there was one. */
  repeatAt?: number | undefined;
  /** When the latest repeat marker read for it started (0: none); its hold's claim carries it (see claims.ts). */
  markerAt?: number;
  /** Filled once looked up. */
  looked?: Looked<Out>;
}

export interface Plan<In, Out> {
  uniques: Unique<In, Out>[];
  /** The key of every input position. */
  keyOf: string[];
}

/** Step 1: dedupe by key, then answer what needs no dataset (test values, malformed input). */
export async function planList<In, Out>(product: Product<In, Out>, inputs: In[]): Promise<Plan<In, Out>> {
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
      if (answer)
        uniques[i]!.free = {
          result: answer.result,
          cacheHit: false,
          suppressed: false,
          test: answer.test,
          local: true,
        };
    });
  }
  return { uniques, keyOf };
}

/** Step 2: the account's suppressions (when honoured) and repeats answer what they can, free. */
export async function recallStored<In, Out>(
  env: Env,
  _db: Database | null,
  product: Product<In, Out>,
  payer: Payer | null,
  uniques: Unique<In, Out>[],
  options: WalkOptions,
  now: number,
  /** After waiting on a concurrent walk: a repeat it started (not the one seen first) is taken whatever the options. */
  waited = false,
): Promise<void> {
  const open = uniques.filter((u) => !u.free);
  if (!payer || !open.length) return;
  // One call to the account's object reads both (its lists live there).
  const recalled = await recallLists(
    env,
    payer.accountId,
    product.name,
    open.map((u) => u.key),
    now,
    listsWanted(product, options),
    product.keys,
  );
  applyRecalled(env, product, open, options, now, recalled, waited);
}

/** What a walk reads of the account's lists: repeats always, suppressions when the call honours them. */
export const listsWanted = <In, Out>(product: Product<In, Out>, options: WalkOptions) => ({
  repeats: true,
  suppressions: Boolean(options.honorSuppressions && product.suppressions),
});

/** Answers free what the account's stored rows answer: a suppressed value, or a repeat young enough. */
export function applyRecalled<In, Out>(
  env: Env,
  product: Product<In, Out>,
  open: Unique<In, Out>[],
  options: WalkOptions,
  now: number,
  { repeats, suppressed }: Recalled,
  waited = false,
) {
  const tooOld = (u: Unique<In, Out>, at: number) =>
    !(waited && at !== u.repeatAt) &&
    (options.refresh || (options.maxAgeSeconds !== null && now - at > options.maxAgeSeconds * 1000));
  for (const u of open) {
    const stored = suppressed.get(u.key);
    const repeat = repeats.get(u.key);
    if (!waited) u.repeatAt = repeat?.createdAt;
    u.markerAt = repeat?.createdAt ?? 0;
    if (stored !== undefined)
      u.free = { result: stored as Out, cacheHit: false, suppressed: true, test: false, local: false };
    else if (repeat && !tooOld(u, repeat.createdAt)) {
      u.refreshed = false;
      const mode =
        typeof product.repeats === "function"
          ? product.repeats(repeat.result as Out, u.input, options, env)
          : product.repeats;
      if (mode === "renew") u.refreshed = true;
      else if (mode === "stored")
        u.free = { result: repeat.result as Out, cacheHit: true, suppressed: false, test: false, local: false };
      else u.repeat = true;
    } else if (repeat) u.refreshed = true;
  }
}
