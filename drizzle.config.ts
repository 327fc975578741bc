import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The shared tables, and each product's own in its folder: a new product's tables are found without a line here.
  schema: ["./src/db/schema.ts", "./src/products/*/tables.ts"],
  out: "./migrations",
});
