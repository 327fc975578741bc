import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Partner calls an account caused per UTC day (`YYYY-MM-DD`): what its daily ceiling is counted against. */
export const partnerSpend = sqliteTable(
  "partner_spend",
  {
    accountId: text("account_id").notNull(),
    day: text("day").notNull(),
    calls: integer("calls").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);

/** An account's own daily ceiling on partner calls, set by the operator; absent rows use PARTNER_DAILY_CALLS. */
export const partnerCeilings = sqliteTable("partner_ceilings", {
  accountId: text("account_id").primaryKey(),
  dailyCalls: integer("daily_calls").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
