import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Times are Unix milliseconds. Money never lives here: balances and the ledger are in the AccountObject Durable
 * Object.
 */
export const createdAt = () => integer("created_at").notNull();

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
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /**
     * An owner manages members and billing; a member manages keys (docs/dashboard.md). The default is SQL, so an insert
     * leaving it out binds no parameter for it (D1 takes at most 100 per statement).
     */
    role: text("role", { enum: ["owner", "member"] })
      .notNull()
      .default(sql`'member'`),
    /** When an invitation was sent (or the member added); a pending invitation lapses 7 days after it. */
    createdAt: createdAt(),
    /**
     * When the member accepted (signed in to the account); null while the invitation is pending. Only members who
     * accepted receive the account's mail (docs/mail.md, "Who receives mail").
     */
    acceptedAt: integer("accepted_at"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] })],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /**
     * The member who holds the key; when they leave the account the key answers KEY_ACCOUNT_MISMATCH: while they have
     * no accepted membership, and for good once `holderLeftAt` is set.
     */
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
    /**
     * When the holder was removed from the account on the dashboard (or invited back after the operator detached
     * them): the key answers KEY_ACCOUNT_MISMATCH from then on, whatever membership the holder has later. Not a
     * revocation (that is a person's act, 401): the spec answers a departed holder's key with 403.
     */
    holderLeftAt: integer("holder_left_at"),
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
  /** JSON `{kind, countries?, note?}` (src/db/coverage.ts); null on rows installed before it was recorded. */
  coverage: text("coverage"),
});
