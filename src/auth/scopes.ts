import { registeredProducts } from "../products/registry";

/**
 * What a secret key can be limited to (spec, Authentication 5): each registered product's scope (its lookups and engine
 * routes; a product reading another's datasets may share its scope, as autocomplete shares `address`) and `account`.
 * Derived from the registry, so a product that joins it with a scope of its own is a scope at once.
 */
const scopes: string[] = [...new Set(registeredProducts().map((p) => p.scope)), "account"];
export const SCOPES = scopes as [string, ...string[]];

export type { Scope } from "../types";
