import type { BulkProduct, WalkOptions } from "../engines/product";
import { planList, recallStored } from "../engines/walk/begin";
import type { Principal } from "../types";
import { keyRefusal, payerOf, type Refusal } from "./service";

/** The most distinct values whose repeats a quote reads (100 statements). */
export const REPEAT_READ_LIMIT = 9_000;

/** What a list of values would cost at most, before anything is held. */
export interface Quote {
  values: number;
  distinct: number;
  /** Distinct values answered free: test values and malformed ones, 7-day repeats, suppressed ones. */
  free: number;
  /** Distinct values that may be charged (each at most one unit of the product). */
  chargeable: number;
  max_credits: number;
}

export interface QuoteRequest<In> {
  product: BulkProduct<In>;
  /** The values as `lookup` would be handed them. */
  inputs: In[];
  /** Values a surface could not read: each counted as a distinct chargeable value, so the figure stays a bound. */
  unreadable?: number;
  options: WalkOptions;
}

export type QuoteOutcome = { ok: true; quote: Quote } | { ok: false; refusal: Refusal };

/**
 * What `lookup` of these inputs would cost at most, without holding anything: the same key check, then the walk's own
 * plan (dedupe, test values) and the account's repeat window and suppressions, read but not taken. Every value left
 * may cost one unit (the price rules never charge more), so the figure is an upper bound; a repeat that expires
 * between the quote and the lookup is the one way it can move.
 */
export async function quote<In>(
  caller: { env: Env; principal: Principal },
  request: QuoteRequest<In>,
): Promise<QuoteOutcome> {
  const { product, inputs, options } = request;
  const refusal = keyRefusal(caller.principal, product, inputs);
  if (refusal) return { ok: false, refusal };
  const plan = await planList(product, inputs);
  // Repeats are read 90 keys a statement; past REPEAT_READ_LIMIT keys every value counts as chargeable instead, which
  // keeps the figure an upper bound without hundreds of reads (a Worker invocation has a budget of them).
  if (plan.uniques.length <= REPEAT_READ_LIMIT) {
    const payer = payerOf(caller.principal);
    await recallStored({ env: caller.env, product, payer, uniques: plan.uniques, options, now: Date.now() });
  }
  const unreadable = request.unreadable ?? 0;
  const free = plan.uniques.filter((u) => u.free || u.repeat).length;
  const chargeable = plan.uniques.length - free + unreadable;
  return {
    ok: true,
    quote: {
      values: inputs.length + unreadable,
      distinct: plan.uniques.length + unreadable,
      free,
      chargeable,
      max_credits: Math.ceil((chargeable * (product.holdUnits?.(options) ?? 1)) / product.unitsPerCredit),
    },
  };
}

/**
 * Values as a list's owner hands them (a bulk run's rows, a monitor's entries) read into the product's inputs (address:
 * a one-line row takes the run's `country`), and how many could not be read.
 */
export function readInputs<In>(
  product: BulkProduct<In>,
  values: readonly unknown[],
  extra: Record<string, unknown>,
): { inputs: In[]; unreadable: number } {
  const inputs: In[] = [];
  for (const value of values) {
    const resolved = product.bulk?.rows?.resolve(value, extra);
    if (resolved) {
      if ("input" in resolved) inputs.push(resolved.input as In);
      continue;
    }
    const parsed = product.input.safeParse(value);
    if (parsed.success) inputs.push(parsed.data as In);
  }
  return { inputs, unreadable: values.length - inputs.length };
}
