import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The shared tables (by their files: drizzle-kit does not follow schema.ts's `export *`), and each product's own in
  // its folder: a new product's tables are found without a line here.
  schema: ["./src/db/tables/*.ts", "./src/products/*/tables.ts", "./src/products/*/*/tables.ts"],
  out: "./migrations",
});
