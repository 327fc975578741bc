import { readdirSync } from "node:fs";
import { defineConfig } from "drizzle-kit";
import { ADDRESS_SCHEMA } from "./drizzle.address.config";

/** Each product's own tables.ts (a new product's tables are found without a line here), less the address database's. */
const productTables = readdirSync("./src/products", { recursive: true, encoding: "utf8" })
  .filter((file) => /^[^/]+\/([^/]+\/)?tables\.ts$/.test(file))
  .map((file) => `./src/products/${file}`)
  .filter((file) => !ADDRESS_SCHEMA.includes(file))
  .sort();

export default defineConfig({
  dialect: "sqlite",
  // The shared tables (by their files: drizzle-kit does not follow schema.ts's `export *`), and each product's own in
  // its folder; the address tables live in their own database (drizzle.address.config.ts, migrations-address/).
  schema: ["./src/db/tables/*.ts", ...productTables],
  out: "./migrations",
});
