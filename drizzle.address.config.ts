import { defineConfig } from "drizzle-kit";

/**
 * The address reference database (`REFERENCE_ADDRESS` in wrangler.toml, src/db/reference.ts): the address tables and
 * the autocomplete index, migrated from migrations-address/. `npm run db:generate` runs this config after the main
 * one; drizzle.config.ts leaves these files out.
 */
export const ADDRESS_SCHEMA = ["./src/products/address/tables.ts", "./src/products/address/autocomplete/tables.ts"];

export default defineConfig({ dialect: "sqlite", schema: ADDRESS_SCHEMA, out: "./migrations-address" });
