import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { SIDECAR_SECRET } from "./test/fixtures/constants.ts";

export default defineConfig({
  test: {
    projects: [
      {
        // The Worker, its Durable Objects, D1, R2 and Queues, inside workerd.
        plugins: [
          cloudflareTest(async ({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                ADMIN_TOKEN: "test-admin-token",
                CHALLENGE_VERIFY_URL: inject("challengeVerifyUrl"),
                DOH_URL: inject("dohUrl"),
                RDAP_BASE_URL: inject("rdapUrl"),
                SMTP_SIDECAR_URL: inject("sidecarUrl"),
                SMTP_SIDECAR_SECRET: SIDECAR_SECRET,
                MAIL_STATS_URL: inject("mailStatsUrl"),
                RECEIVER_URL: inject("receiverUrl"),
                SNS_CERT_URL: inject("snsCertUrl"),
                SNS_SIGNING_KEY: inject("snsSigningKey"),
                WEBHOOKS_ALLOW_LOOPBACK: "true",
                WEBHOOK_TIMEOUT_MS: "400",
                WEBHOOK_RETRY_BASE_MS: "20",
              },
              // An empty second database for test/migration.test.ts, which applies the migrations to it step by step.
              d1Databases: { MIGRATION_DB: "migration-test" },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/**/*.test.ts"],
          globalSetup: ["./test/fixtures/global-setup.ts"],
          setupFiles: ["./test/setup.ts"],
        },
      },
      {
        // Code that runs in Node: the SMTP sidecar and the dataset builders.
        test: {
          name: "node",
          environment: "node",
          include: ["workers/**/*.test.{ts,mjs}", "datasets/**/*.test.{ts,mjs}", "scripts/**/*.test.{ts,mjs}"],
        },
      },
    ],
  },
});
