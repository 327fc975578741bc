/** What test/e2e/global-setup.ts hands to the e2e tests. */
declare module "vitest" {
  interface ProvidedContext {
    e2e: {
      /** The local API, http://127.0.0.1:<port>. */
      base: string;
      adminToken: string;
      /** Webhook receiver on loopback (test/fixtures/receiver.ts). */
      receiverUrl: string;
      /** The Stripe stand-in (test/fixtures/stripe.ts): `GET /sessions` lists the Checkout sessions created. */
      stripeUrl: string;
      /** The secret the Worker checks `POST /stripe/webhook` signatures with. */
      stripeWebhookSecret: string;
      /** Chromium's executable; null when none could be found or installed (the browser tests are then skipped). */
      browser: string | null;
      /** Where screenshots go. */
      outputDir: string;
    };
  }
}
export {};
