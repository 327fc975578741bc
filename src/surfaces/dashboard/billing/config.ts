import Stripe from "stripe";
import type { Item } from "./items";

/** The optional secrets and vars that switch purchases on (wrangler secrets; not in the generated Env). */
type BillingEnv = Env & {
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_PRICES?: string;
  STRIPE_API_URL?: string;
};

export interface Billing {
  stripe: Stripe;
  webhookSecret: string;
  /** Stripe price id of each item on sale; an item without one is not offered. */
  prices: Partial<Record<Item, string>>;
}

const clients = new Map<string, Stripe>();

/**
 * The Stripe client over fetch and SubtleCrypto (the Workers runtime has no Node http or crypto), pointed at
 * STRIPE_API_URL (a local stand-in in tests and `npm run dev -- --offline`); null when the secrets are not set, and
 * the dashboard then says purchases are off.
 */
export function billing(env: Env): Billing | null {
  const e = env as BillingEnv;
  if (!e.STRIPE_SECRET_KEY || !e.STRIPE_WEBHOOK_SECRET) return null;
  let prices: Partial<Record<Item, string>> = {};
  try {
    prices = JSON.parse(e.STRIPE_PRICES || "{}") as Partial<Record<Item, string>>;
  } catch {
    console.error(JSON.stringify({ at: "billing config", error: "STRIPE_PRICES is not JSON" }));
  }
  const api = new URL(e.STRIPE_API_URL || "https://api.stripe.com");
  const cacheKey = `${e.STRIPE_SECRET_KEY}@${api.origin}`;
  let stripe = clients.get(cacheKey);
  if (!stripe) {
    stripe = new Stripe(e.STRIPE_SECRET_KEY, {
      httpClient: Stripe.createFetchHttpClient(),
      host: api.hostname,
      port: api.port || (api.protocol === "https:" ? 443 : 80),
      protocol: api.protocol === "https:" ? "https" : "http",
      maxNetworkRetries: 1,
      telemetry: false,
    });
    clients.set(cacheKey, stripe);
  }
  return { stripe, webhookSecret: e.STRIPE_WEBHOOK_SECRET, prices };
}

export const cryptoProvider = Stripe.createSubtleCryptoProvider();
