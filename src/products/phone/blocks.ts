import { database } from "../../db/client";
import { planSource } from "./datasets";
import { lengthsUnder, lineTypeUnder, planOf, type CountryPlan } from "./plan";
import type { BlockResult } from "./result";
import { indexRows, longest } from "./lookup";
import { blockRows, installedTables } from "./store";
import { installedSource } from "../../engines/sources";

/**
 * `GET /phone/block/{country}/{prefix}`: the numbering-plan blocks under a national prefix (docs/phone.md, "Blocks").
 */
export interface BlockQuery {
  country: string;
  prefix: string;
}

/** Blocks one answer lists at most; `truncated` says there were more. */
export const MAX_BLOCKS = 500;

export const blockKey = (q: BlockQuery) => `block:${q.country.toUpperCase()}:${q.prefix}`;

const empty = (q: BlockQuery, plan: CountryPlan | null, lengths: number[] = []): BlockResult => ({
  country: q.country.toUpperCase(),
  calling_code: plan?.callingCode ?? null,
  prefix: q.prefix,
  possible_lengths: lengths,
  blocks: [],
  truncated: false,
  sources: plan ? [planSource] : [],
});

/**
 * Answered without D1 when there is nothing to list: no plan for the country, or no valid number starts with the
 * prefix.
 */
export function localBlocks(q: BlockQuery): BlockResult | null {
  const plan = planOf(q.country.toUpperCase());
  return !plan || lengthsUnder(plan, q.prefix).length === 0 ? empty(q, plan) : null;
}

/**
 * The blocks are the allocation ranges of the carrier and geocode tables that start with the prefix (and that this
 * country's plan admits, since calling codes are shared: US and CA). With none, the prefix itself is the one block.
 * Each block's type comes from the plan; its carrier and place from the longest range holding it.
 */
export async function lookupBlocks(env: Env, q: BlockQuery): Promise<BlockResult> {
  const plan = planOf(q.country.toUpperCase())!;
  const ancestors = Array.from({ length: q.prefix.length + 1 }, (_, n) => q.prefix.slice(0, n));
  const db = database(env);
  const [{ below, enclosing }, installed] = await Promise.all([
    blockRows(db, { code: plan.callingCode, prefix: q.prefix, ancestors, limit: MAX_BLOCKS * 2 + 1 }),
    installedTables(db),
  ]);
  const index = indexRows([...enclosing, ...below]);
  const prefixes = [...new Set(below.map((r) => r.prefix))].filter((p) => lengthsUnder(plan, p).length > 0);
  const listed = prefixes.length ? prefixes.slice(0, MAX_BLOCKS) : [q.prefix];
  const blocks = listed.map((prefix) => ({
    prefix,
    line_type: lineTypeUnder(plan, prefix),
    carrier: longest(index, "phone-carriers", plan.callingCode, prefix),
    location: longest(index, "phone-geocodes", plan.callingCode, prefix),
  }));
  const tables = (["phone-carriers", "phone-geocodes"] as const).flatMap((name) =>
    installed.has(name) ? [installedSource(name, installed.get(name)!)] : [],
  );
  return {
    ...empty(q, plan, lengthsUnder(plan, q.prefix)),
    blocks,
    truncated: prefixes.length > MAX_BLOCKS || below.length > MAX_BLOCKS * 2,
    sources: [planSource, ...tables],
  };
}
