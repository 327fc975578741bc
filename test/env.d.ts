declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    TEST_ADDRESS_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** An empty database (vitest.config.ts) that test/db/migration.test.ts migrates step by step. */
    MIGRATION_DB: D1Database;
    /** A database with no tables (vitest.config.ts): every write to it fails, as a D1 outage would. */
    EMPTY_DB: D1Database;
    /** The fixture SMTP server's session and RCPT log (test/fixtures/mail.ts). */
    MAIL_STATS_URL: string;
    /** The resolver of `npm run dev -- --offline` (test/fixtures/doh.ts): names outside its zone are refused. */
    OFFLINE_DOH_URL: string;
    MAIL_CATCHER_URL: string;
    /** Webhook receivers on loopback (test/fixtures/receiver.ts). */
    RECEIVER_URL: string;
    /** Set (OPENAPI_COVERAGE=1) to print which documented responses each test file checked (test/setup.ts). */
    OPENAPI_COVERAGE: string;
    /** Runs Redocly and keeps recorded examples (test/fixtures/openapi-desk.ts). */
    OPENAPI_DESK_URL: string;
    /** Set by `npm run openapi:examples` (scripts/record-examples.mjs): test files send real answers to the desk. */
    OPENAPI_RECORD: string;
    /** A stand-in SNS signing certificate on loopback, and its private key (PKCS#8, base64) (test/fixtures/sns.ts). */
    SNS_CERT_URL: string;
    SNS_SIGNING_KEY: string;
    /** The datasets' publishers stand-in (test/fixtures/publishers.ts): `POST /control` changes what it serves. */
    PUBLISHERS_URL: string;
    /** The partners' stand-in (test/fixtures/partners.ts): `GET /stats` counts the calls each value caused. */
    PARTNERS_URL: string;
    /** Purchases (src/surfaces/dashboard/billing): the Stripe stand-in (test/fixtures/stripe.ts) and its keys. */
    STRIPE_API_URL: string;
    STRIPE_SECRET_KEY: string;
    STRIPE_WEBHOOK_SECRET: string;
    STRIPE_PRICES: string;
  }
}

declare module "*.md?raw" {
  const text: string;
  export default text;
}

declare module "*.csv?raw" {
  const text: string;
  export default text;
}

declare module "*.txt?raw" {
  const text: string;
  export default text;
}

declare module "*.tsv?raw" {
  const text: string;
  export default text;
}

declare module "*.json?raw" {
  const text: string;
  export default text;
}
