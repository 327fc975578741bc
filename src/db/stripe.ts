import { eq, sql } from "drizzle-orm";
import type { Database } from "./client";
import { stripeCustomers, stripeEarlyRefunds, stripeEvents, stripePayments } from "./schema";

export const stripeEventSeen = async (db: Database, id: string) =>
  (await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id)).get()) !== undefined;

/** Records what an event did; a second record of the same event is ignored. */
export async function recordStripeEvent(db: Database, row: typeof stripeEvents.$inferInsert): Promise<void> {
  await db.insert(stripeEvents).values(row).onConflictDoNothing();
}

/** Records a paid pack once; the row that stays is the first session's (read it back to know whose it is). */
export async function insertPayment(db: Database, row: typeof stripePayments.$inferInsert) {
  await db.insert(stripePayments).values(row).onConflictDoNothing();
  return paymentByIntent(db, row.paymentIntent);
}

/** Keeps the highest refunded amount announced for a payment not yet credited. */
export async function recordEarlyRefund(db: Database, paymentIntent: string, amountRefunded: number): Promise<void> {
  await db
    .insert(stripeEarlyRefunds)
    .values({ paymentIntent, amountRefunded, createdAt: Date.now() })
    .onConflictDoUpdate({
      target: stripeEarlyRefunds.paymentIntent,
      set: { amountRefunded: sql`max(${stripeEarlyRefunds.amountRefunded}, excluded.amount_refunded)` },
    });
}

export const earlyRefundOf = (db: Database, paymentIntent: string) =>
  db.select().from(stripeEarlyRefunds).where(eq(stripeEarlyRefunds.paymentIntent, paymentIntent)).get();

export async function markCredited(db: Database, paymentIntent: string): Promise<void> {
  await db.update(stripePayments).set({ credited: 1 }).where(eq(stripePayments.paymentIntent, paymentIntent));
}

export const paymentByIntent = (db: Database, paymentIntent: string) =>
  db.select().from(stripePayments).where(eq(stripePayments.paymentIntent, paymentIntent)).get();

export async function setRefundedCredits(db: Database, paymentIntent: string, credits: number): Promise<void> {
  await db
    .update(stripePayments)
    .set({ refundedCredits: credits })
    .where(eq(stripePayments.paymentIntent, paymentIntent));
}

export async function upsertCustomer(db: Database, row: typeof stripeCustomers.$inferInsert): Promise<void> {
  await db
    .insert(stripeCustomers)
    .values(row)
    .onConflictDoUpdate({
      target: stripeCustomers.accountId,
      set: { customer: row.customer, subscription: row.subscription, plan: row.plan },
    });
}

export const customerOf = (db: Database, customer: string) =>
  db.select().from(stripeCustomers).where(eq(stripeCustomers.customer, customer)).get();
