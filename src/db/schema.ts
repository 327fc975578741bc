import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Times are Unix milliseconds. Money never lives here: balances and the ledger are in the AccountCredits Durable Object. */
const createdAt = () => integer("created_at").notNull();

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
  /** SHA-256 of the account's current `fb_` key; rotating replaces it, so old URLs stop working at once. */
  feedbackKeyHash: text("feedback_key_hash").unique(),
  createdAt: createdAt(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  createdAt: createdAt(),
});

export const memberships = sqliteTable(
  "memberships",
  {
    accountId: text("account_id").notNull().references(() => accounts.id),
    userId: text("user_id").notNull().references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] })],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    /** The member who holds the key; when they leave the account the key answers KEY_ACCOUNT_MISMATCH. */
    userId: text("user_id").references(() => users.id),
    kind: text("kind", { enum: ["secret", "publishable"] }).notNull(),
    /** SHA-256 hex of the whole key; the key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** First characters and last four, for lists and logs. */
    hint: text("hint").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    allowedIps: text("allowed_ips", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    allowedDomains: text("allowed_domains", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    dailyCreditCap: integer("daily_credit_cap"),
    challengeSiteKey: text("challenge_site_key"),
    challengeSecret: text("challenge_secret"),
    createdAt: createdAt(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_account").on(t.accountId)],
);

export const requestLog = sqliteTable(
  "request_log",
  {
    requestId: text("request_id").primaryKey(),
    accountId: text("account_id").notNull(),
    keyId: text("key_id"),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: integer("status").notNull(),
    code: text("code"),
    credits: integer("credits").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("request_log_account").on(t.accountId, t.createdAt)],
);

/** Bot-challenge tokens already spent, so a token is accepted once even if the verifier would accept it again. */
export const usedChallengeTokens = sqliteTable("used_challenge_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  usedAt: integer("used_at").notNull(),
});

/** Operator switches, e.g. `sandbox_enabled`. */
export const settings = sqliteTable("settings", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});

/** One row per loaded dataset: what `GET /status/data` lists and what `sources` versions refer to. */
export const datasets = sqliteTable("datasets", {
  name: text("name").primaryKey(),
  version: text("version").notNull(),
  records: integer("records").notNull(),
  loadedAt: integer("loaded_at").notNull(),
});

/** The account's last settled answer per normalized address: the 7-day repeat window. Unverified answers write none. */
export const emailAnswers = sqliteTable(
  "email_answers",
  {
    accountId: text("account_id").notNull(),
    normalizedEmail: text("normalized_email").notNull(),
    result: text("result", { mode: "json" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.normalizedEmail] })],
);

/**
 * Mailbox handshake answers shared across accounts: confirmed ones (accepted, no_mailbox, catch_all) for up to a week,
 * uncertain ones (greylisted, timeout) for 15 minutes. `provider_unavailable` is never stored.
 */
export const mailboxAnswers = sqliteTable(
  "mailbox_answers",
  {
    email: text("email").primaryKey(),
    /** Lets the domain lookup tell whether the domain answered catch-all this week. */
    domain: text("domain").notNull(),
    outcome: text("outcome", { enum: ["accepted", "no_mailbox", "catch_all", "greylisted", "timeout"] }).notNull(),
    checkedAt: integer("checked_at").notNull(),
  },
  (t) => [index("mailbox_answers_domain").on(t.domain, t.checkedAt)],
);

export const emailSuppressions = sqliteTable(
  "email_suppressions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    email: text("email").notNull(),
    reason: text("reason").notNull(),
    /** `verdict` (added by an undeliverable answer) or `manual` (POST /email/suppressions). */
    source: text("source", { enum: ["verdict", "manual"] }).notNull(),
    /** The stored verdict a batch answers with; null for manual entries. */
    result: text("result", { mode: "json" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("email_suppressions_account_email").on(t.accountId, t.email)],
);

export const emailHistory = sqliteTable(
  "email_history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    requestId: text("request_id").notNull(),
    email: text("email").notNull(),
    normalizedEmail: text("normalized_email").notNull(),
    deliverable: text("deliverable").notNull(),
    reason: text("reason"),
    creditsUsed: integer("credits_used").notNull(),
    cacheHit: integer("cache_hit", { mode: "boolean" }).notNull(),
    suppressed: integer("suppressed", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("email_history_account").on(t.accountId, t.createdAt)],
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
    webhookStatus: text("webhook_status", { enum: ["pending", "delivered", "failed"] }),
    webhookDetail: text("webhook_detail"),
    /** The finished event's exact bytes, frozen when the run settles so redeliveries repeat them. */
    webhookBody: text("webhook_body"),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    /** The creation response, replayed for the same Idempotency-Key and body. */
    createResponse: text("create_response"),
    inputExpired: integer("input_expired", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("bulk_jobs_account").on(t.accountId, t.product, t.createdAt),
    uniqueIndex("bulk_jobs_idempotency").on(t.accountId, t.product, t.idempotencyKey),
  ],
);

/**
 * Company registers synced locally (GLEIF LEI-CDF, UK Companies House, ...): one row per identifier in the register's
 * own spelling. No registered address is stored.
 */
export const registerEntities = sqliteTable(
  "register_entities",
  {
    register: text("register").notNull(),
    identifier: text("identifier").notNull(),
    name: text("name"),
    /** Normalised: `active`, `dissolved`, or another lowercase word the register uses. */
    status: text("status").notNull(),
    /** The register's own status wording (e.g. "Liquidation", "LAPSED"). */
    statusDetail: text("status_detail"),
    country: text("country"),
    /** LEI records: ISSUED, LAPSED, RETIRED, ... */
    registrationStatus: text("registration_status"),
    /** LEI records: the national register and number the record points to, for cross-register flags. */
    linkedRegister: text("linked_register"),
    linkedIdentifier: text("linked_identifier"),
  },
  (t) => [primaryKey({ columns: [t.register, t.identifier] })],
);

/** Saved identifier lists re-checked weekly or monthly. */
export const entityMonitors = sqliteTable(
  "entity_monitors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    keyId: text("key_id").notNull(),
    name: text("name").notNull(),
    /** The identifiers as given (strings read as LEIs, or `{identifier, type, country}` objects). */
    identifiers: text("identifiers", { mode: "json" }).$type<unknown[]>().notNull(),
    cadence: text("cadence", { enum: ["weekly", "monthly"] }).notNull(),
    webhookUrl: text("webhook_url"),
    webhookSecret: text("webhook_secret"),
    webhookEvents: text("webhook_events", { enum: ["changes", "every_run"] }).notNull().default("changes"),
    webhookStatus: text("webhook_status", { enum: ["pending", "delivered", "failed"] }),
    webhookDetail: text("webhook_detail"),
    lastRunAt: integer("last_run_at"),
    nextRunAt: integer("next_run_at").notNull(),
    lastSummary: text("last_summary", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("entity_monitors_account").on(t.accountId), index("entity_monitors_due").on(t.nextRunAt)],
);

/** The last recorded answer per monitored entry: what a run compares against. */
export const entityBaselines = sqliteTable(
  "entity_baselines",
  {
    monitorId: integer("monitor_id").notNull(),
    /** `lei:<LEI>` or `company_number:<CC>:<number>`, in the register's spelling. */
    entryKey: text("entry_key").notNull(),
    answer: text("answer", { mode: "json" }).notNull(),
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.monitorId, t.entryKey] })],
);
