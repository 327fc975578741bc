import type Stripe from "stripe";
import { resumeWhenCreditsArrive } from "../../../engines/bulk/actions";
import { database } from "../../../db/client";
import {
  customerOf,
  earlyRefundOf,
  insertPayment,
  markCredited,
  paymentByIntent,
  recordEarlyRefund,
  recordStripeEvent,
  setRefundedCredits,
  stripeEventSeen,
  upsertCustomer,
} from "../../../db/stripe";
import { accountObject } from "../../../engines/credits/credits";
import { billing, cryptoProvider } from "./config";
import { isPack, isPaidPlan, PACKS } from "./items";

export type WebhookOutcome = { status: 200; outcome: string } | { status: 400 | 503; error: string };

/** Verifies the Stripe-Signature header (HMAC of the raw body, 5-minute tolerance) and returns the event, or null. */
export async function verifiedEvent(
  env: Env,
  body: string,
  signature: string | undefined,
): Promise<Stripe.Event | null> {
  const config = billing(env);
  if (!config || !signature) return null;
  try {
    return await config.stripe.webhooks.constructEventAsync(
      body,
      signature,
      config.webhookSecret,
      undefined,
      cryptoProvider,
    );
  } catch {
    return null;
  }
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);
/**
 * A pack's ledger id is its Checkout session's, not the event's: `checkout.session.completed` and
 * `checkout.session.async_payment_succeeded` (or a resent event with a new id) announce one payment, which credits
 * once.
 */
const sessionLedgerId = (session: Stripe.Checkout.Session) => `stripe:${session.id}`;

type Payment = NonNullable<Awaited<ReturnType<typeof paymentByIntent>>>;

/**
 * A pack's credits, once per payment intent. The intent's row is claimed first: a second session naming an intent
 * another session claimed credits nothing (a row from before sessions were recorded has none and credits by its
 * session's ledger id, as it did). Once credited, a refund that arrived first is taken back.
 */
async function packPaid(env: Env, session: Stripe.Checkout.Session, item: keyof typeof PACKS): Promise<string> {
  const accountId = (session.metadata?.account_id ?? session.client_reference_id)!;
  const db = database(env);
  const paymentIntent = idOf(session.payment_intent);
  const credits = PACKS[item].credits;
  const row = { accountId, pack: item, credits, amount: session.amount_total ?? 0, createdAt: Date.now() };
  const payment = paymentIntent
    ? await insertPayment(db, { ...row, paymentIntent, session: session.id, credited: 0 })
    : undefined;
  if (payment?.session && payment.session !== session.id) return "pack_already_credited";
  const stub = accountObject(env, accountId);
  const { applied } = await stub.applyPayment(sessionLedgerId(session), credits, `Stripe ${item}`);
  if (payment) {
    await markCredited(db, payment.paymentIntent);
    const early = await earlyRefundOf(db, payment.paymentIntent);
    if (early) await takeBack(env, payment, early.amountRefunded);
  }
  return applied ? "pack_credited" : "pack_already_credited";
}

/** A completed Checkout: a pack's credits, or the plan it subscribed to. */
async function checkoutCompleted(env: Env, session: Stripe.Checkout.Session): Promise<[string | null, string]> {
  const accountId = session.metadata?.account_id ?? session.client_reference_id;
  const item = session.metadata?.item ?? "";
  if (!accountId || session.payment_status === "unpaid") return [accountId ?? null, "ignored"];
  if (isPack(item)) return [accountId, await packPaid(env, session, item)];
  if (isPaidPlan(item)) {
    const customer = idOf(session.customer);
    if (customer)
      await upsertCustomer(database(env), {
        accountId,
        customer,
        subscription: idOf(session.subscription),
        plan: item,
      });
    await accountObject(env, accountId).setPlan(item);
    return [accountId, "plan_started"];
  }
  return [accountId, "ignored"];
}

/**
 * Takes back the refunded share of a pack's credits (what is left of them: spent credits stay spent). The share is
 * the charge's running total, applied by the account's object up to that total, so two events announcing one refund
 * (or a refund applied both by its own event and by its payment's) take it once.
 */
async function takeBack(env: Env, payment: Payment, amountRefunded: number): Promise<void> {
  const share = payment.amount > 0 ? Math.min(1, amountRefunded / payment.amount) : 1;
  const target = Math.round(payment.credits * share);
  await accountObject(env, payment.accountId).refundPayment({
    payment: `stripe:${payment.paymentIntent}`,
    total: target,
    recorded: payment.refundedCredits,
    note: `Stripe refund of ${payment.pack}`,
  });
  if (target > payment.refundedCredits) await setRefundedCredits(database(env), payment.paymentIntent, target);
}

/**
 * A refund. Stripe does not order events, so a refund of a payment not yet credited is kept as an early refund and
 * taken back when the payment's Checkout event credits it. Each side writes before it reads the other's row (the
 * payment is marked credited, the early refund recorded), so whichever comes second sees the first.
 */
async function chargeRefunded(env: Env, charge: Stripe.Charge): Promise<[string | null, string]> {
  const db = database(env);
  const paymentIntent = idOf(charge.payment_intent);
  if (!paymentIntent) return [null, "ignored"];
  let payment = await paymentByIntent(db, paymentIntent);
  if (!payment?.credited) {
    await recordEarlyRefund(db, paymentIntent, charge.amount_refunded);
    payment = await paymentByIntent(db, paymentIntent);
    if (!payment?.credited) return [payment?.accountId ?? null, "refund_awaits_payment"];
  }
  await takeBack(env, payment, charge.amount_refunded);
  return [payment.accountId, "refunded"];
}

/**
 * A subscription's renewal: a failed payment stops the monthly grants as a cancellation does (plan credits stay usable
 * for 60 days, packs untouched); a paid renewal, or a payment that succeeds after a failure, restores the plan.
 */
async function subscriptionChange(
  env: Env,
  customerId: string | null,
  outcome: "renewal_failed" | "renewed" | "plan_cancelled",
): Promise<[string | null, string]> {
  const customer = customerId ? await customerOf(database(env), customerId) : undefined;
  if (!customer) return [null, "ignored"];
  const plan = outcome === "renewed" && customer.plan && isPaidPlan(customer.plan) ? customer.plan : "cancelled";
  await accountObject(env, customer.accountId).setPlan(plan);
  return [customer.accountId, outcome];
}

async function apply(env: Env, event: Stripe.Event): Promise<[string | null, string]> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return checkoutCompleted(env, event.data.object);
    case "charge.refunded":
      return chargeRefunded(env, event.data.object);
    case "invoice.payment_failed":
      return event.data.object.billing_reason === "subscription_cycle"
        ? subscriptionChange(env, idOf(event.data.object.customer), "renewal_failed")
        : [null, "ignored"];
    case "invoice.paid":
      return event.data.object.billing_reason === "subscription_cycle"
        ? subscriptionChange(env, idOf(event.data.object.customer), "renewed")
        : [null, "ignored"];
    case "customer.subscription.deleted":
      return subscriptionChange(env, idOf(event.data.object.customer), "plan_cancelled");
    default:
      return [null, "ignored"];
  }
}

/** Outcomes that leave the account with more credits. */
const CREDITED = new Set(["pack_credited", "plan_started", "renewed"]);

/**
 * Applies a verified event once. A redelivered event finds its record and does nothing; events racing each other
 * (the same one twice, or two announcing one payment) reach the account's object, which credits once per Checkout
 * session (`applyPayment`) and refunds once per running total of a payment (`refundPayment`).
 */
export async function handleStripeWebhook(
  env: Env,
  body: string,
  signature: string | undefined,
): Promise<WebhookOutcome> {
  if (!billing(env)) return { status: 503, error: "Purchases are off: no Stripe secrets are configured." };
  const event = await verifiedEvent(env, body, signature);
  if (!event) return { status: 400, error: "The Stripe-Signature header does not verify." };
  const db = database(env);
  if (await stripeEventSeen(db, event.id)) return { status: 200, outcome: "duplicate" };
  const [accountId, outcome] = await apply(env, event);
  await recordStripeEvent(db, { id: event.id, type: event.type, accountId, outcome, createdAt: Date.now() });
  // Runs that stopped for lack of credits go on by themselves once credits arrive (docs/dashboard.md, "Bulk runs").
  if (accountId && CREDITED.has(outcome)) await resumeWhenCreditsArrive(env, accountId);
  return { status: 200, outcome };
}
