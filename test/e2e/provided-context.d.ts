/** What test/e2e/global-setup.ts hands to the e2e tests. */
declare module "vitest" {
  interface ProvidedContext {
    e2e: {
      /** The local API, http://127.0.0.1:<port>. */
      base: string;
      adminToken: string;
      /** Webhook receiver on loopback (test/fixtures/receiver.ts). */
      receiverUrl: string;
      /** The Stripe stand-in (test/fixtures/stripe.ts), whose payment page Checkout sends the browser to. */
      stripeUrl: string;
      /** Chromium's executable; null when none could be found or installed (the browser tests are then skipped). */
      browser: string | null;
      /** Where screenshots go. */
      outputDir: string;
    };
  }
}
export {};
