import { asProduct, type Product, type ProductName } from "../engines/product";
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
 * Every product the engines serve. Adding a product is a folder under src/products and one line here: its bulk runs,
 * monitors, suppressions, history, webhooks and contract tests then come from the engines (docs/adding-a-product.md).
 */
export const PRODUCTS: Partial<Record<ProductName, Product>> = {
  email: asProduct(email),
  entity: asProduct(entity),
  address: asProduct(address),
  ip: asProduct(ip),
  phone: asProduct(phone),
  consistency: asProduct(consistency),
};

export const registeredProducts = (): Product[] => Object.values(PRODUCTS);

export const productNamed = (name: string): Product | undefined => PRODUCTS[name as ProductName];

/** The product whose monitors carry this family name (a product's own, or a companion's such as `email_domain`). */
export const monitoredProduct = (family: string): Product | undefined =>
  registeredProducts()
    .flatMap((p) => [p, ...(p.companions ?? [])])
    .find((p) => p.monitor && (p.monitor.family ?? p.name) === family);
