import type { Product } from "../engines/product";
import { addressDeclarations } from "./address/declarations";
import { autocompleteDeclarations } from "./address/autocomplete/declarations";
import { consistencyDeclarations } from "./consistency/declarations";
import { consistencyRequestSchema } from "./consistency/schemas";
import { emailDeclarations } from "./email/declarations";
import { entityDeclarations } from "./entity/declarations";
import { ipDeclarations } from "./ip/declarations";
import { phoneDeclarations } from "./phone/declarations";
import { address } from "./address/product";
import { autocompleteProduct } from "./address/autocomplete/product";
import { consistencyProduct } from "./consistency/product";
import { email } from "./email/product";
import { lookupWithoutHandshake } from "./email/without-handshake";
import { entity } from "./entity/product";
import { objectItem } from "./entity/schemas";
import { ip } from "./ip/product";
import { phone } from "./phone/product";
import { addressSurface } from "./address/surface";
import { autocompleteSurface } from "./address/autocomplete/surface";
import { consistencySurface } from "./consistency/surface";
import { emailSurface } from "./email/surface";
import { entitySurface } from "./entity/surface";
import { ipSurface } from "./ip/surface";
import { phoneSurface } from "./phone/surface";
import { BUILD_PRODUCTS } from "./build-products";
import { served, type ServedProduct } from "./served";

/** Consistency compares the other products' answers; it imports none of them, they are handed to it here. */
export const consistency = consistencyProduct({
  email,
  phone,
  ip,
  address,
  entity,
  emailWithoutHandshake: lookupWithoutHandshake,
  entityObject: objectItem,
});

export type { ServedProduct } from "./served";

/**
 * Every product the engines serve. Adding a product is a folder under src/products, one line here and its migration:
 * its lookups, bulk runs, monitors, suppressions, history, webhooks, OpenAPI tag, guides, status, operator routes and
 * contract tests then come from the registry (docs/adding-a-product.md).
 */
export const PRODUCTS = {
  email: served(email, emailDeclarations, emailSurface),
  phone: served(phone, phoneDeclarations, phoneSurface),
  ip: served(ip, ipDeclarations, ipSurface),
  address: served(address, addressDeclarations, addressSurface),
  autocomplete: served(autocompleteProduct, autocompleteDeclarations, autocompleteSurface),
  entity: served(entity, entityDeclarations, entitySurface),
  consistency: served(
    consistency,
    consistencyDeclarations(consistencyRequestSchema({ phone, address, entityObject: objectItem })),
    consistencySurface,
  ),
} satisfies Record<string, ServedProduct>;

/** A registered product's name: the registry's keys, the only list of them (scopes and event names derive from it). */
export type RegisteredName = keyof typeof PRODUCTS;

/** The registry's products, then any the build adds (none in the Worker: src/products/build-products.ts). */
const SERVED: Readonly<Record<string, ServedProduct>> = { ...PRODUCTS, ...BUILD_PRODUCTS };

/** The served products' names, in registry order (the order scopes, event names and the document list them in). */
export const productNames = (): RegisteredName[] => Object.keys(SERVED) as RegisteredName[];

export const registeredProducts = (): ServedProduct[] => Object.values(SERVED);

export const productNamed = (name: string): Product | undefined =>
  Object.hasOwn(SERVED, name) ? SERVED[name] : undefined;

/** The product whose monitors carry this family name (a product's own, or a companion's such as `email_domain`). */
export const monitoredProduct = (family: string): Product | undefined =>
  registeredProducts()
    .flatMap((p) => [p, ...(p.companions ?? [])])
    .find((p) => p.monitor && (p.monitor.family ?? p.name) === family);
