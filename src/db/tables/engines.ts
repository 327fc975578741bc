import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./platform";

/**
 * Tables of the shared engines, each keyed by product (`email`, `entity`, ...): the repeat store, suppressions,
 * history, feedback, monitors with their baselines, bulk runs and the webhook outbox.
 */

/** The account's last paid (or settled) answer per (product, key): the 7-day repeat window. */
export const repeats = sqliteTable(
  "repeats",
  {
    accountId: text("account_id").notNull(),
    product: text("product").notNull(),
    key: text("key").notNull(),
    result: text("result", { mode: "json" }).notNull(),
    /** The version of the product's key function that keyed the row (src/engines/rekey.ts); 0 before versions. */
    keyVersion: integer("key_version").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.product, t.key] }),
    index("repeats_created").on(t.createdAt),
    index("repeats_key_version").on(t.accountId, t.product, t.keyVersion),
  ],
);

export const suppressions = sqliteTable(
  "suppressions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    product: text("product").notNull(),
    /** The product's normalized value (the repeat key). */
    key: text("key").notNull(),
    reason: text("reason").notNull(),
    /** `verdict` (added by an answer), `manual` (the suppressions endpoint) or `feedback` (a bounce or complaint). */
    source: text("source", { enum: ["verdict", "manual", "feedback"] }).notNull(),
    /** The stored answer a batch or bulk run gives for this value. */
    result: text("result", { mode: "json" }),
    /** The version of the product's key function that keyed the row (src/engines/rekey.ts); 0 before versions. */
    keyVersion: integer("key_version").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("suppressions_account_key").on(t.accountId, t.product, t.key),
    index("suppressions_key_version").on(t.accountId, t.product, t.keyVersion),
  ],
);

export const history = sqliteTable(
  "history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    product: text("product").notNull(),
    requestId: text("request_id").notNull(),
    /** The value as answered (`email` for email), and its normalized key. */
    value: text("value").notNull(),
    key: text("key").notNull(),
    /** The product's verdict column (`deliverable` for email). */
    verdict: text("verdict").notNull(),
    reason: text("reason"),
    creditsUsed: integer("credits_used").notNull(),
    cacheHit: integer("cache_hit", { mode: "boolean" }).notNull(),
    suppressed: integer("suppressed", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("history_account").on(t.accountId, t.product, t.createdAt)],
);

/** Delivery outcomes reported by the account (or its sending provider) for values it looked up. */
export const feedback = sqliteTable(
  "feedback",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    product: text("product").notNull(),
    key: text("key").notNull(),
    outcome: text("outcome").notNull(),
    /** A finer kind of the outcome where the product has one (email bounces: `hard`, `soft`). */
    kind: text("kind"),
    /** What the summary groups by besides the outcome (email: the address's domain). */
    facet: text("facet"),
    /** Provider and event details as received, for audit. */
    detail: text("detail", { mode: "json" }),
    source: text("source").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("feedback_account").on(t.accountId, t.product, t.createdAt),
    index("feedback_key").on(t.accountId, t.product, t.key),
  ],
);

/** Saved lists of any product re-checked weekly or monthly. */
export const monitors = sqliteTable(
  "monitors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    keyId: text("key_id").notNull(),
    product: text("product").notNull(),
    name: text("name").notNull(),
    /** The entries as given (strings, or objects for products whose values have parts). */
    entries: text("entries", { mode: "json" }).$type<unknown[]>().notNull(),
    cadence: text("cadence", { enum: ["weekly", "monthly"] }).notNull(),
    webhookUrl: text("webhook_url"),
    webhookSecret: text("webhook_secret"),
    webhookEvents: text("webhook_events", { enum: ["changes", "every_run"] })
      .notNull()
      .default("changes"),
    /** Mail each run that `webhook_events` would post to the account's members (src/engines/monitors/alert-mail.ts). */
    alertEmails: integer("alert_emails", { mode: "boolean" }).notNull().default(false),
    /** The product's own options every run uses (phone: `network`), as given; null before options existed. */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>(),
    lastRunAt: integer("last_run_at"),
    nextRunAt: integer("next_run_at").notNull(),
    lastSummary: text("last_summary", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("monitors_account").on(t.accountId, t.product), index("monitors_due").on(t.nextRunAt)],
);

/** The last recorded answer per monitored entry: what a run compares against. */
export const monitorBaselines = sqliteTable(
  "monitor_baselines",
  {
    monitorId: integer("monitor_id").notNull(),
    entryKey: text("entry_key").notNull(),
    answer: text("answer", { mode: "json" }).notNull(),
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.monitorId, t.entryKey] })],
);

/**
 * The webhook outbox: one record per delivery of a job's finished event, a monitor run or a settled callback. The body
 * is frozen here, so a redelivery posts the same bytes; the owner's `webhook_status` is its latest record's status.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    owner: text("owner", { enum: ["job", "monitor", "callback"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    event: text("event").notNull(),
    url: text("url").notNull(),
    secret: text("secret").notNull(),
    /** Empty when the body is in R2 (`bodyKey`): over `INLINE_BODY_BYTES` (src/engines/webhooks/body-store.ts). */
    body: text("body").notNull(),
    bodyKey: text("body_key"),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    detail: text("detail"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("webhook_deliveries_owner").on(t.owner, t.ownerId, t.id),
    index("webhook_deliveries_pending").on(t.status, t.updatedAt),
  ],
);

/** One bulk run of any product (email first). Inputs and results live in R2; counters and state here. */
export const bulkJobs = sqliteTable(
  "bulk_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    keyId: text("key_id").notNull(),
    product: text("product").notNull(),
    status: text("status", { enum: ["queued", "processing", "completed", "failed", "cancelled"] }).notNull(),
    total: integer("total").notNull(),
    duplicateCount: integer("duplicate_count").notNull().default(0),
    processed: integer("processed").notNull().default(0),
    /** Per-verdict row counts, product-specific (`{deliverable, risky, undeliverable}` for email). */
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
    creditsUsed: integer("credits_used").notNull().default(0),
    stoppedReason: text("stopped_reason"),
    cancelRequested: integer("cancel_requested", { mode: "boolean" }).notNull().default(false),
    /** Distinct inputs, stored one JSON line each in R2; `nextEntry` of them are answered and billed. */
    entries: integer("entries").notNull(),
    nextEntry: integer("next_entry").notNull().default(0),
    /** Byte offset in the input file of every chunk's first line, plus the file's length: chunks are read by range. */
    chunkOffsets: text("chunk_offsets", { mode: "json" }).$type<number[]>().notNull(),
    /** Lookup options every row shares (refresh, max_age, timeout). */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    webhookUrl: text("webhook_url"),
    webhookSecret: text("webhook_secret"),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    /** The creation response, replayed for the same Idempotency-Key and body. */
    createResponse: text("create_response"),
    inputExpired: integer("input_expired", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
    /** When this finish's mail went to the mail outbox (or was found not wanted); null until then. */
    finishedMailAt: integer("finished_mail_at"),
    /** The run's number within its account (1 for its first run), shown by the dashboard; `id` counts every run. */
    accountRun: integer("account_run"),
    /** Values the run's answers put on the account's suppression list (an undeliverable email verdict). */
    suppressedAdded: integer("suppressed_added").notNull().default(0),
  },
  (t) => [
    index("bulk_jobs_account").on(t.accountId, t.product, t.createdAt),
    uniqueIndex("bulk_jobs_account_run").on(t.accountId, t.accountRun),
    uniqueIndex("bulk_jobs_idempotency").on(t.accountId, t.product, t.idempotencyKey),
  ],
);
