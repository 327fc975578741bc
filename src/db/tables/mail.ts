import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./platform";

/**
 * The mail outbox (src/engines/mail): every message the service writes to its own customers, rendered once when it is
 * queued (`raw` is the whole MIME message), so a retry or a recovery sends the same bytes under the same Message-ID.
 */
export const mailMessages = sqliteTable(
  "mail_messages",
  {
    /** The message id (`msg_...`), also the MIME Message-ID's left part: one row, one message, whatever retries. */
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    kind: text("kind").notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    /** The plain-text part, shown to the operator (GET /admin/v1/mail). */
    textBody: text("text_body").notNull(),
    raw: text("raw").notNull(),
    /** Optional mail carries List-Unsubscribe and is never sent to a suppressed recipient. */
    optional: integer("optional", { mode: "boolean" }).notNull(),
    /** One message per event and recipient (`monitor_run:42:ada@example.com`): a re-run event queues nothing new. */
    dedupeKey: text("dedupe_key").unique(),
    status: text("status", { enum: ["pending", "sent", "failed", "suppressed"] }).notNull(),
    detail: text("detail"),
    attempts: integer("attempts").notNull().default(0),
    /** When the next attempt is due: a pending row this far overdue lost its queue message (recovery re-queues it). */
    dueAt: integer("due_at").notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("mail_messages_pending").on(t.status, t.dueAt),
    index("mail_messages_created").on(t.createdAt),
    index("mail_messages_hourly").on(t.accountId, t.kind, t.recipient, t.createdAt),
  ],
);

/** Recipients whose mail failed permanently (or who unsubscribed): optional mail to them stops. */
export const mailSuppressions = sqliteTable("mail_suppressions", {
  recipient: text("recipient").primaryKey(),
  reason: text("reason").notNull(),
  createdAt: createdAt(),
});

/**
 * Links sent by mail (account confirmation; dashboard sign-in links use the same machinery): the token is random and
 * only its SHA-256 is stored, it expires, it is used once, and it is bound to the recipient it was sent to.
 */
export const mailLinks = sqliteTable("mail_links", {
  tokenHash: text("token_hash").primaryKey(),
  purpose: text("purpose", { enum: ["confirm_email", "sign_in"] }).notNull(),
  accountId: text("account_id").notNull(),
  recipient: text("recipient").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  createdAt: createdAt(),
});
