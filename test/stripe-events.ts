import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import { admin } from "./helpers";
import { uniqueEmail } from "./dashboard-browser";

/** Stripe events as Stripe posts them to `/stripe/webhook`, for the billing tests and the hostile pass's neighbours. */
const stripe = new Stripe("sk_test_unused", { httpClient: Stripe.createFetchHttpClient() });
const crypto = Stripe.createSubtleCryptoProvider();
let sequence = 0;
export const eventId = () => `evt_test_${Date.now()}_${++sequence}`;

/** Posts an event the way Stripe does, signed with the library's own test helper (or with another secret). */
export async function deliver(event: Record<string, unknown>, secret = env.STRIPE_WEBHOOK_SECRET) {
  const payload = JSON.stringify({
    object: "event",
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    ...event,
  });
  const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, cryptoProvider: crypto });
  return SELF.fetch("https://api.test/stripe/webhook", {
    method: "POST",
    headers: { "Stripe-Signature": signature, "Content-Type": "application/json" },
    body: payload,
  });
}

/** A paid Checkout of the 1,000-credit pack, its session named after the payment. */
export const packCompleted = (accountId: string, paymentIntent: string, amount = 1000) => ({
  id: eventId(),
  type: "checkout.session.completed",
  data: {
    object: {
      id: `cs_test_${paymentIntent}`,
      object: "checkout.session",
      mode: "payment",
      payment_status: "paid",
      client_reference_id: accountId,
      metadata: { account_id: accountId, item: "pack_1000" },
      payment_intent: paymentIntent,
      amount_total: amount,
      customer: null,
      subscription: null,
    },
  },
});

/** A refund of `refunded` (cents, in all so far) of the payment `paymentIntent` of `amount` cents. */
export const chargeRefunded = (paymentIntent: string, { amount, refunded }: { amount: number; refunded: number }) => ({
  id: eventId(),
  type: "charge.refunded",
  data: {
    object: {
      id: `ch_${paymentIntent}`,
      object: "charge",
      payment_intent: paymentIntent,
      amount,
      amount_refunded: refunded,
      refunded: refunded >= amount,
    },
  },
});

/** A confirmed account on the enterprise plan (no plan credits), so a pack's credits are all its balance. */
export async function account() {
  const { id } = await admin<{ id: string }>("POST", "/accounts", {
    email: uniqueEmail("buyer"),
    email_verified: true,
    plan: "enterprise",
  });
  return id;
}
