import type { ServedProduct } from "./served";

/**
 * Products a build serves beside the registry's: none in the Worker. The test build swaps this module for
 * test/fixtures/products/build-products.ts (vitest.config.ts), which serves a test-only product that follows
 * docs/adding-a-product.md, so every surface is proven to pick a new product up without a line of its own.
 */
export const BUILD_PRODUCTS: Readonly<Record<string, ServedProduct>> = {};
