import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./platform";

/** One sending policy per (account, product): the product's rules as the account last PUT them. */
export const policies = sqliteTable(
  "policies",
  {
    accountId: text("account_id").notNull(),
    product: text("product").notNull(),
    rules: text("rules", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.product] })],
);
