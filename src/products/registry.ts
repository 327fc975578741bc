import { asProduct, type Product, type ProductName } from "../engines/product";
import { email } from "./email/product";
import { entity } from "./entity/product";
import { phone } from "./phone/product";

/**
 * Every product the engines serve. Adding a product is a folder under src/products and one line here: its bulk runs,
 * monitors, suppressions, history, webhooks and contract tests then come from the engines (docs/adding-a-product.md).
 */
export const PRODUCTS: Partial<Record<ProductName, Product>> = {
  email: asProduct(email),
  entity: asProduct(entity),
  phone: asProduct(phone),
};

export const registeredProducts = (): Product[] => Object.values(PRODUCTS);

export const productNamed = (name: string): Product | undefined => PRODUCTS[name as ProductName];
