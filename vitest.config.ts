import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { SIDECAR_SECRET } from "./test/fixtures/constants.ts";
import { partnerVars } from "./test/fixtures/partners.ts";
import { publisherVars } from "./test/fixtures/publishers.ts";
import { STRIPE_TEST_PRICES, STRIPE_TEST_SECRET_KEY, STRIPE_TEST_WEBHOOK_SECRET } from "./test/fixtures/stripe.ts";

const ADMIN_TOKEN = "test-admin-token";
const MAIL_LINK_SECRET = "test-mail-link-secret-0123456789abcdef";

// wrangler.toml requires these three secrets. The tests bind their own values (below); giving wrangler's config reader
// the same ones spares a "Missing required secrets" warning per test file where there is no .dev.vars (CI).
process.env.ADMIN_TOKEN ??= ADMIN_TOKEN;
process.env.SMTP_SIDECAR_SECRET ??= SIDECAR_SECRET;
process.env.MAIL_LINK_SECRET ??= MAIL_LINK_SECRET;

/** The Worker, its Durable Objects, D1, R2 and Queues inside workerd, bound to the stand-ins global-setup starts. */
const workerd = () =>
  cloudflareTest(async ({ inject }) => ({
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      bindings: {
        // The Worker's migrations, then the test-only product's (test/fixtures/products/specimen/, below).
        TEST_MIGRATIONS: [
          ...(await readD1Migrations("./migrations")),
          ...(await readD1Migrations("./test/fixtures/products/specimen/migrations")),
        ],
        // The address reference database's (REFERENCE_ADDRESS in wrangler.toml, src/db/reference.ts).
        TEST_ADDRESS_MIGRATIONS: await readD1Migrations("./migrations-address"),
        ADMIN_TOKEN,
        CHALLENGE_VERIFY_URL: inject("challengeVerifyUrl"),
        DOH_URL: inject("dohUrl"),
        OFFLINE_DOH_URL: inject("offlineDohUrl"),
        RDAP_BASE_URL: inject("rdapUrl"),
        SMTP_SIDECAR_URL: inject("sidecarUrl"),
        SMTP_SIDECAR_SECRET: SIDECAR_SECRET,
        MAIL_LINK_SECRET,
        MAIL_STATS_URL: inject("mailStatsUrl"),
        MAIL_CATCHER_URL: inject("mailCatcherUrl"),
        // Customer mail through the sidecar's relay to the catcher (test/fixtures/catcher.ts), retries 50 ms
        // apart.
        MAIL_TRANSPORT: "smtp",
        MAIL_FROM: "Vérification API <mail@verify.test>",
        MAIL_BASE_URL: "https://verify.test",
        MAIL_RETRY_BASE_MS: "50",
        RECEIVER_URL: inject("receiverUrl"),
        SNS_CERT_URL: inject("snsCertUrl"),
        SNS_SIGNING_KEY: inject("snsSigningKey"),
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        OPENAPI_COVERAGE: process.env.OPENAPI_COVERAGE ?? "",
        // Redocly's lint of the served document and the recording of real answers as examples (Node side).
        OPENAPI_DESK_URL: inject("openApiDeskUrl"),
        OPENAPI_RECORD: process.env.OPENAPI_RECORD ? "1" : "",
        WEBHOOK_TIMEOUT_MS: "400",
        WEBHOOK_RETRY_BASE_MS: "20",
        // Settling re-checks 1 s apart, so test/products/email/settle.test.ts follows the whole chain through
        // the queue.
        RECHECK_DELAYS_S: "1,1",
        // The old address generation is swept at once: tests have no lagging replicas to wait out.
        DATASET_SWEEP_DELAY_S: "0",
        // The scheduled dataset refresh fetches from the publishers' stand-in (test/fixtures/publishers.ts).
        ...publisherVars(inject("publishersUrl")),
        PUBLISHERS_URL: inject("publishersUrl"),
        // Partner checks against their stand-in (test/fixtures/partners.ts), with short timeouts so a slow
        // partner (5 s) is a timeout and an open breaker closes again within a test. 1.5 s, not less: the stand-in
        // shares the runner's process, and on a loaded machine a 400 ms timeout failed healthy answers, whose
        // failures then opened the breaker for the next check.
        ...partnerVars(inject("partnersUrl")),
        PARTNERS_URL: inject("partnersUrl"),
        PARTNER_TIMEOUT_MS: "1500",
        PARTNER_BUDGET_MS: "4000",
        PARTNER_BREAKER_MS: "1500",
        // Purchases on, against the Stripe stand-in (test/fixtures/stripe.ts); webhooks signed with this
        // secret.
        STRIPE_API_URL: inject("stripeUrl"),
        STRIPE_SECRET_KEY: STRIPE_TEST_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
        STRIPE_PRICES: STRIPE_TEST_PRICES,
      },
      // An empty second database for test/db/migration.test.ts, which applies the migrations to it step by
      // step, and one that stays empty: a real D1 that refuses writes (test/http/request-log.test.ts, the queue
      // fallback).
      d1Databases: { MIGRATION_DB: "migration-test", EMPTY_DB: "empty-test" },
      queueConsumers: { "verification-jobs": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 10 } },
    },
  }));

/**
 * Files that replace, refresh or uninstall a dataset every product reads (registers, prefix tables, IP and postcode
 * tables), or that count the runtime's own round trips: they need a runtime no other file has touched, and running
 * in a shared one would change what the files after them see. Every other file makes its own account, keys and values
 * with random ids and shares one runtime per worker.
 */
const PRISTINE = [
  // Each migrates MIGRATION_DB step by step, as test/db/migration.test.ts does in the shared runtime.
  "test/db/holder-left-migration.test.ts",
  "test/db/reference-keys.test.ts",
  "test/engines/datasets/dataset-refresh.test.ts",
  "test/engines/datasets/stand-in-coverage.test.ts",
  "test/products/address/refresh.test.ts",
  "test/products/entity/batch.test.ts",
  "test/products/entity/entity.test.ts",
  "test/products/entity/monitors.test.ts",
  "test/products/ip/city-refresh.test.ts",
  "test/products/ip/datasets.test.ts",
  "test/products/phone/refresh.test.ts",
  "test/platform/round-trips.test.ts",
  "test/platform/round-trips-products.test.ts",
  "test/platform/round-trips-combinations.test.ts",
];

/**
 * The test build serves a test-only product beside the registry's (docs/adding-a-product.md, followed by
 * test/fixtures/products/specimen/): src/products/build-products.ts, empty in the Worker, is swapped for the fixture's.
 */
const testBuild = {
  alias: [
    {
      find: /^\.\/build-products$/,
      replacement: fileURLToPath(new URL("./test/fixtures/products/build-products.ts", import.meta.url)),
    },
  ],
};

const workerdTest = {
  exclude: [...configDefaults.exclude, "test/e2e/**"],
  globalSetup: ["./test/fixtures/global-setup.ts"],
  setupFiles: ["./test/setup.ts"],
  // Polls bound their own waits; on a loaded 2-core machine the 5 s default cut a test short before its answer
  // arrived (seen for the bulk completion webhook and monitor runs). A slow test is not a failed one.
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // One file at a time per core; each worker keeps its runtime (and the app's 1,600 modules) between its files.
    maxWorkers: 2,
    // `npm run test:times` reads this after a run: the slowest files, so a slow file is seen the day it lands.
    reporters: ["default", ["json", { outputFile: ".vitest/last-run.json" }]],
    projects: [
      {
        plugins: [workerd()],
        resolve: testBuild,
        test: {
          ...workerdTest,
          name: "worker",
          isolate: false,
          include: ["test/**/*.test.ts"],
          exclude: [...workerdTest.exclude, ...PRISTINE, "test/**/*.node.test.ts"],
        },
      },
      {
        plugins: [workerd()],
        resolve: testBuild,
        test: {
          ...workerdTest,
          name: "worker-pristine",
          // In parallel with the shared files (a project with fileParallelism: false would run last, alone); the
          // ones that set the publishers' editions take turns through holdPublishers() (test/publishers-lease.ts).
          isolate: true,
          include: PRISTINE,
        },
      },
      {
        // Code that runs in Node: the SMTP sidecar, the dataset builders, and `*.node.test.ts` under test/.
        test: {
          name: "node",
          environment: "node",
          // Two files at a time beside the workerd ones: on a busy 2-core machine a sidecar test with thousands of
          // addresses or a 16 MiB body, or a dataset rebuild, outlasts the 5 s default. Slow is not failed.
          testTimeout: 30_000,
          include: [
            "workers/**/*.test.{ts,mjs}",
            "datasets/**/*.test.{ts,mjs}",
            "scripts/**/*.test.{ts,mjs}",
            "client/*.test.{ts,mjs}",
            // Checks that read the Worker's and the sidecar's modules side by side (test/limits/hops.node.test.ts).
            "test/**/*.node.test.ts",
          ],
        },
      },
      {
        // Against a running local API (`wrangler dev`, as `npm run dev` starts it): the widget in headless Chromium,
        // the TypeScript client, and the generated client types against the served OpenAPI document.
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["./test/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // What a person sees arrives after the widget's debounce and a real lookup: give a busy machine time.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
