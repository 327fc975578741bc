import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./platform";

/**
 * A signed-in browser (src/surfaces/dashboard/session.ts). Only the SHA-256 of the cookie's value is stored, so the
 * table never holds a usable session; `csrf_token` is what every state-changing form of that session must send back.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id").notNull(),
    /** The account the browser is working in (a user may belong to several). */
    accountId: text("account_id").notNull(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("dashboard_sessions_user").on(t.userId)],
);

/** WebAuthn credentials registered by a signed-in user (@simplewebauthn/server). */
export const passkeys = sqliteTable(
  "passkeys",
  {
    /** The credential id, base64url. */
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull(),
    transports: text("transports", { mode: "json" }).$type<string[]>().notNull().default([]),
    name: text("name").notNull(),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

/** A WebAuthn challenge handed to a browser, used once within five minutes. */
export const authChallenges = sqliteTable("auth_challenges", {
  id: text("id").primaryKey(),
  challenge: text("challenge").notNull(),
  /** Registration challenges belong to the signed-in user; sign-in challenges to nobody yet. */
  userId: text("user_id"),
  expiresAt: integer("expires_at").notNull(),
});

/** Every verified Stripe event, recorded once: a redelivered event finds its row and changes nothing. */
export const stripeEvents = sqliteTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  accountId: text("account_id"),
  /** What the event did (`pack_credited`, `pack_already_credited`, `plan_started`, `refunded`, `ignored`, ...). */
  outcome: text("outcome").notNull(),
  createdAt: createdAt(),
});

/** A paid pack, by its PaymentIntent, so a refund (which names the PaymentIntent) finds the credits it bought. */
export const stripePayments = sqliteTable("stripe_payments", {
  paymentIntent: text("payment_intent").primaryKey(),
  accountId: text("account_id").notNull(),
  pack: text("pack").notNull(),
  credits: integer("credits").notNull(),
  /** What was paid, in the currency's smallest unit: a partial refund takes back that share of the credits. */
  amount: integer("amount").notNull(),
  refundedCredits: integer("refunded_credits").notNull().default(0),
  /** The Checkout session that credited the payment; another session naming the same intent credits nothing. */
  session: text("session"),
  /** 1 once the account's object holds the credits: a refund arriving before then waits as an early refund. */
  credited: integer("credited").notNull().default(1),
  createdAt: createdAt(),
});

/** A refund announced before its payment (Stripe does not order events): taken back once the payment is credited. */
export const stripeEarlyRefunds = sqliteTable("stripe_early_refunds", {
  paymentIntent: text("payment_intent").primaryKey(),
  /** The highest `amount_refunded` announced so far, in the currency's smallest unit. */
  amountRefunded: integer("amount_refunded").notNull(),
  createdAt: createdAt(),
});

/** The Stripe customer and subscription of an account that bought a plan. */
export const stripeCustomers = sqliteTable("stripe_customers", {
  accountId: text("account_id").primaryKey(),
  customer: text("customer").notNull().unique(),
  subscription: text("subscription"),
  plan: text("plan"),
});
