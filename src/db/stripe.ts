import { eq } from "drizzle-orm";
import type { Database } from "./client";
import { stripeCustomers, stripeEvents, stripePayments } from "./schema";

export const stripeEventSeen = async (db: Database, id: string) =>
  (await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id)).get()) !== undefined;

/** Records what an event did; a second record of the same event is ignored. */
export async function recordStripeEvent(db: Database, row: typeof stripeEvents.$inferInsert): Promise<void> {
  await db.insert(stripeEvents).values(row).onConflictDoNothing();
}

export async function insertPayment(db: Database, row: typeof stripePayments.$inferInsert): Promise<void> {
  await db.insert(stripePayments).values(row).onConflictDoNothing();
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
