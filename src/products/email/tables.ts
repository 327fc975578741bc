import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Mailbox handshake answers shared across accounts: confirmed ones (accepted, no_mailbox, mailbox_disabled, catch_all)
 * for up to a week, uncertain ones (greylisted, timeout, mailbox_full) for 15 minutes. `provider_unavailable` is never
 * stored.
 */
export const mailboxAnswers = sqliteTable(
  "mailbox_answers",
  {
    email: text("email").primaryKey(),
    /** Lets the domain lookup tell whether the domain answered catch-all this week. */
    domain: text("domain").notNull(),
    outcome: text("outcome", {
      enum: ["accepted", "no_mailbox", "mailbox_full", "mailbox_disabled", "catch_all", "greylisted", "timeout"],
    }).notNull(),
    checkedAt: integer("checked_at").notNull(),
    /** Whether the domain took a random address too in that handshake; null when that was not learnt. */
    catchAll: integer("catch_all", { mode: "boolean" }),
  },
  (t) => [index("mailbox_answers_domain").on(t.domain, t.checkedAt)],
);
