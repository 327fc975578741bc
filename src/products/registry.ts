import type { LookupShape } from "../engines/lookup-shape";
import { asProduct, type Product, type ProductName } from "../engines/product";
import { addressLookups } from "./address/lookups";
import { consistencyLookups } from "./consistency/lookups";
import { emailLookups } from "./email/lookups";
import { entityLookups } from "./entity/lookups";
import { ipLookups } from "./ip/lookups";
import { phoneLookups } from "./phone/lookups";
import { address } from "./address/product";
import { consistencyProduct } from "./consistency/product";
import { email } from "./email/product";
import { lookupWithoutHandshake } from "./email/without-handshake";
import { entity } from "./entity/product";
import { objectItem } from "./entity/schemas";
import { ip } from "./ip/product";
import { phone } from "./phone/product";

/** Consistency compares the other products' answers; it imports none of them, they are handed to it here. */
export const consistency = consistencyProduct({ email, phone, ip, address, entity, emailWithoutHandshake: lookupWithoutHandshake, entityObject: objectItem });

/**
 * A product with its lookups attached. They are declared beside the product, not on its object, because they name its
 * other product objects (phone's blocks, IP's ASN index): declaring them on it would make the two modules import each
 * other. The object keeps its identity (the engines compare products by reference nowhere, but consistency holds them).
 */
function served<In, Out>(product: Product<In, Out>, lookups: LookupShape): Product {
  return asProduct(Object.assign(product, { lookups }));
}

/**
 * Every product the engines serve. Adding a product is a folder under src/products and one line here: its bulk runs,
 * monitors, suppressions, history, webhooks and contract tests then come from the engines (docs/adding-a-product.md).
 */
export const PRODUCTS: Partial<Record<ProductName, Product>> = {
  email: served(email, emailLookups),
  entity: served(entity, entityLookups),
  address: served(address, addressLookups),
  ip: served(ip, ipLookups),
  phone: served(phone, phoneLookups),
  consistency: served(consistency, consistencyLookups(consistency.input)),
};

export const registeredProducts = (): Product[] => Object.values(PRODUCTS);

export const productNamed = (name: string): Product | undefined => PRODUCTS[name as ProductName];

/** The product whose monitors carry this family name (a product's own, or a companion's such as `email_domain`). */
export const monitoredProduct = (family: string): Product | undefined =>
  registeredProducts()
    .flatMap((p) => [p, ...(p.companions ?? [])])
    .find((p) => p.monitor && (p.monitor.family ?? p.name) === family);
