import type { WalkItem, WalkState } from "./state";

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
    const data = product.asAsked ? product.asAsked(answer, inputs[index]!) : answer;
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
