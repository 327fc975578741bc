import type { Product } from "../../engines/product";
import { compare, observe } from "./monitor";
import { entityKey, lookupIdentifiers, type EntityItem } from "./lookup";
import { REGISTER_NAMES } from "./registers";
import type { EntityResult } from "./result";
import { entityItem } from "./schemas";
import { entityRefreshable } from "./refresh";

/** A monitored entry's identity as given: an LEI string, or `type:COUNTRY:IDENTIFIER` (case and spaces folded). */
export function entryKey(item: EntityItem): string {
  if (typeof item === "string") return `lei::${item.trim().toUpperCase()}`;
  const country = (item.country ?? "").trim().toUpperCase();
  return `${item.type ?? "lei"}:${country}:${item.identifier.trim().toUpperCase().replace(/\s+/g, "")}`;
}

/**
 * Company identifiers answered from registers synced locally (docs/entity.md): 1 credit when a register carries the
 * identifier, free otherwise. A repeat within 7 days is read again (the register may have changed) and costs nothing.
 */
export const entity: Product<EntityItem, EntityResult> = {
  name: "entity",
  scope: "entity",
  input: entityItem,
  unitsPerCredit: 1,
  cost: "local",
  normalize: entityKey,
  lookup: (ctx, inputs) => lookupIdentifiers(ctx.env, inputs).then((results) => results.map((result) => ({ result }))),
  price: (result) => ({ units: result.found ? 1 : 0 }),
  repeatable: (result) => result.found,
  repeats: "fresh",
  monitor: {
    entryKey,
    observe,
    compare,
    label: (result) => result.identifier,
    tally: { found: (result) => result.found },
    listField: "identifiers",
    maxEntries: 500,
    // The sample register's company `npm run dev` loads (docs/entity.md), as the try-it form's body.
    example: { identifier: "09900001", type: "company_number", country: "GB" },
  },
  isSample: () => false,
  datasets: REGISTER_NAMES,
  refreshable: entityRefreshable,
};
