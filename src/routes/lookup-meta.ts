import { z } from "zod";
import type { ItemMetaField, LookupMetaField, LookupRoute } from "../engines/lookup-declarations";
import { batchMeta, lookupMeta } from "../http/meta";
import type { LookupAnswer } from "../lookups/service";

const META_FIELDS: Record<Exclude<LookupMetaField, `${string}_prepaid`>, z.ZodType> = {
  suppressed: z.boolean(),
  refreshed: z.boolean(),
  fair_use_billed: z.boolean(),
  settling: z.boolean().optional(),
};

const isPrepaid = (name: string) => name.endsWith("_prepaid");

const fields = (names: readonly string[]) =>
  Object.fromEntries(
    names.map((name) => [name, isPrepaid(name) ? z.int() : META_FIELDS[name as keyof typeof META_FIELDS]]),
  );

/** The route's `*_prepaid` fields, each the walk's prepaid count (0 for a product that sells one unit a credit). */
const prepaidOf = (route: LookupRoute, answer: LookupAnswer<unknown, unknown>) =>
  Object.fromEntries((route.meta ?? []).filter(isPrepaid).map((name) => [name, answer.prepaid ?? 0]));

/** The `meta` schema a declared route answers with (none for the browser endpoints). */
export function metaSchema(route: LookupRoute): z.ZodObject | null {
  if (route.kind === "browser") return null;
  const own = fields(route.meta ?? []);
  if (route.kind !== "batch") return lookupMeta.extend(own);
  return batchMeta.extend({
    ...own,
    ...Object.fromEntries(Object.keys(route.counts ?? {}).map((name) => [name, z.int()])),
  });
}

const itemMetaSchema = (names: readonly ItemMetaField[]) =>
  z.object({ credits_used: z.int(), cache_hit: z.boolean(), ...fields(names) });

/** The `data` schema: a batch answers `{results: [{index, input, data, meta}]}`. */
export function dataSchema(route: LookupRoute): z.ZodType {
  if (route.kind !== "batch") return route.response;
  const item = route.item ?? { input: z.unknown(), meta: [] };
  return z.object({
    results: z.array(
      z.object({ index: z.int(), input: item.input, data: route.response, meta: itemMetaSchema(item.meta) }),
    ),
  });
}

const pick = (values: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.filter((name) => values[name] !== undefined).map((name) => [name, values[name]]));

/** A single lookup's or read's meta: what its one answer cost, and the fields the route declares. */
export function singleMeta(route: LookupRoute, answer: LookupAnswer<unknown, unknown>) {
  const item = answer.items[0]!;
  const values = { ...item.meta, credits_remaining: answer.creditsRemaining, ...prepaidOf(route, answer) };
  return pick(values, ["credits_used", "credits_remaining", "cache_hit", ...(route.meta ?? [])]);
}

/** A batch's meta: how far the walk got, what it cost, and the counts the route declares. */
export function batchMetaOf(route: LookupRoute, answer: LookupAnswer<unknown, unknown>) {
  const counts = Object.entries(route.counts ?? {}).map(([name, holds]) => [
    name,
    answer.items.filter((item) => holds(item.data)).length,
  ]);
  const values = {
    requested: answer.requested,
    processed: answer.processed,
    credits_used: answer.creditsUsed,
    credits_remaining: answer.creditsRemaining,
    stopped_reason: answer.stoppedReason,
    ...prepaidOf(route, answer),
    ...Object.fromEntries(counts),
  };
  return pick(values, [
    "requested",
    "processed",
    ...Object.keys(route.counts ?? {}),
    "credits_used",
    "credits_remaining",
    "stopped_reason",
    ...(route.meta ?? []),
  ]);
}

/** A batch's results, each item with the meta fields the route declares. */
export const batchResults = (route: LookupRoute, answer: LookupAnswer<unknown, unknown>) =>
  answer.items.map(({ index, input, data, meta }) => ({
    index,
    input,
    data,
    meta: pick({ ...meta }, ["credits_used", "cache_hit", ...(route.item?.meta ?? [])]),
  }));
