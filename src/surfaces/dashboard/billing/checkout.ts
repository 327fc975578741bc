import { billing } from "./config";
import { isPack, isPaidPlan, PACKS, type Item } from "./items";

/**
 * A Stripe Checkout session for one item, for the account's own address. Nothing is credited here: credits arrive
 * only with the verified webhook (./webhook.ts). The account id and item ride in metadata, on the session and on what
 * it creates (the PaymentIntent of a pack, the subscription of a plan), so every later event names its account.
 */
export async function checkoutUrl(
  env: Env,
  account: { id: string; email: string },
  item: Item,
  returnBase: string,
): Promise<string | null> {
  const config = billing(env);
  const price = config?.prices[item];
  if (!config || !price) return null;
  const metadata = { account_id: account.id, item };
  const session = await config.stripe.checkout.sessions.create({
    mode: isPaidPlan(item) ? "subscription" : "payment",
    line_items: [{ price, quantity: 1 }],
    client_reference_id: account.id,
    customer_email: account.email,
    metadata,
    ...(isPack(item)
      ? { payment_intent_data: { metadata: { ...metadata, credits: String(PACKS[item].credits) } } }
      : { subscription_data: { metadata } }),
    success_url: `${returnBase}/dashboard/account?purchase=done`,
    cancel_url: `${returnBase}/dashboard/account?purchase=cancelled`,
  });
  return session.url;
}
