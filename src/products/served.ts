import type { LookupDeclarations } from "../engines/lookup-declarations";
import { asProduct, type Product } from "../engines/product";
import type { ProductSurface } from "./surface";

/** A registered product: the engines' view of it, and what the account-wide surfaces show of it. */
export type ServedProduct = Product & { surface: ProductSurface };

/**
 * A product with its lookups and surface attached. They are declared beside the product, not on its object, because
 * they name its other product objects (phone's blocks, IP's ASN index) and its operator routes: declaring them on it
 * would make the modules import each other. The object keeps its identity: consistency and other modules hold the
 * same objects.
 */
export function served<In, Out>(
  product: Product<In, Out>,
  lookups: LookupDeclarations,
  surface: ProductSurface,
): ServedProduct {
  return Object.assign(asProduct(Object.assign(product, { lookups })), { surface });
}
