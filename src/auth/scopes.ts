import { productNames } from "../products/registry";

/**
 * What a secret key can be limited to (spec, Authentication 5): each registered product (its lookups and engine routes)
 * and `account`. Derived from the registry, so a product that joins it is a scope at once.
 */
const scopes: string[] = [...productNames(), "account"];
export const SCOPES = scopes as [string, ...string[]];

export type { Scope } from "../types";
