import { z } from "zod";
import type { ItemMetaField, LookupMetaField, LookupRoute } from "../engines/lookup-declarations";
import { batchMeta, lookupMeta } from "../http/meta";

/** The schemas a declared route documents (REST's OpenAPI, the tools' output): built once, when routes are mounted. */
const META_FIELDS: Record<LookupMetaField, z.ZodType> = {
  suppressed: z.boolean(),
  refreshed: z.boolean(),
  fair_use_billed: z.boolean(),
  settling: z.boolean().optional(),
};

const fields = (names: readonly LookupMetaField[]) =>
  Object.fromEntries(names.map((name) => [name, META_FIELDS[name]]));

/** The `meta` schema a declared route answers with (none for the browser endpoints). */
export function metaSchema(route: LookupRoute): z.ZodObject | null {
  if (route.kind === "browser") return null;
  // A product's prepaid count (`ip_lookups_prepaid`, `autocomplete_prepaid`): units bought and not yet used.
  const own = { ...fields(route.meta ?? []), ...(route.prepaid ? { [route.prepaid]: z.int() } : {}) };
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
