import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import type { TestProject } from "vitest/node";
import { ensureBrowser } from "../../scripts/browser.mjs";
import { ROOT, startLocalWorker, stopProcess } from "../../scripts/lib/local.mjs";
import { REGISTERED, SIDECAR_SECRET, ZONE } from "../fixtures/constants";
import { startDoh } from "../fixtures/doh";
import { startMail } from "../fixtures/mail";
import { startRdap } from "../fixtures/rdap";
import { startReceiver } from "../fixtures/receiver";
import { startSiteverify } from "../fixtures/siteverify";
import {
  STRIPE_TEST_PRICES,
  STRIPE_TEST_SECRET_KEY,
  STRIPE_TEST_WEBHOOK_SECRET,
  startStripe,
} from "../fixtures/stripe";

const ADMIN_TOKEN = "e2e-admin-token";
/** Screenshots and the Worker's log; kept after the run (gitignored). */
const OUTPUT_DIR = join(ROOT, "test-results", "e2e");

/**
 * The local API as `npm run dev` runs it (wrangler dev with the demo page, its own throw-away data), pointed at the
 * fixture internet (DNS over HTTPS, RDAP, siteverify, SMTP behind the real sidecar, webhook receiver, Stripe's API for
 * the dashboard's purchases), and a Chromium
 * for the widget: found, or installed through scripts/browser.mjs, or the browser tests are skipped saying why.
 */
export default async function setup(project: TestProject) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const browser = await ensureBrowser({ log: (line: string) => console.log(line) });
  if (!browser.executablePath) console.warn(`\n[e2e] SKIPPING the widget's browser tests: ${browser.reason}\n`);

  const doh = await startDoh(ZONE);
  const [siteverify, rdap, mail, receiver, stripe] = await Promise.all([
    startSiteverify(),
    startRdap(REGISTERED),
    startMail(doh.url),
    startReceiver(),
    startStripe(),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "verification-e2e-"));
  const logFd = openSync(join(OUTPUT_DIR, "wrangler.log"), "w");
  let worker: ChildProcess | undefined;
  const teardown = async () => {
    await stopProcess(worker);
    closeSync(logFd);
    await Promise.all([siteverify.close(), doh.close(), rdap.close(), mail.close(), receiver.close(), stripe.close()]);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const { base } = await startLocalWorker({
      persistTo: join(dir, "state"),
      env: { WIDGET_DEMO: "1" },
      stdio: logFd,
      track: (child: ChildProcess) => (worker = child),
      vars: {
        ADMIN_TOKEN,
        SMTP_SIDECAR_SECRET: SIDECAR_SECRET,
        MAIL_LINK_SECRET: "e2e-mail-link-secret-0123456789abcdef",
        SMTP_SIDECAR_URL: mail.sidecarUrl,
        CHALLENGE_VERIFY_URL: siteverify.url,
        DOH_URL: doh.url,
        RDAP_BASE_URL: rdap.url,
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        // Purchases on (docs/dashboard.md#purchases): Checkout against the stand-in, whose payment page signs the
        // webhook it posts here with this secret.
        STRIPE_API_URL: stripe.url,
        STRIPE_SECRET_KEY: STRIPE_TEST_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
        STRIPE_PRICES: STRIPE_TEST_PRICES,
      },
    });
    project.provide("e2e", {
      base,
      adminToken: ADMIN_TOKEN,
      receiverUrl: receiver.url,
      stripeUrl: stripe.url,
      browser: browser.executablePath ?? null,
      outputDir: OUTPUT_DIR,
    });
  } catch (error) {
    await teardown();
    throw new Error(`the local API did not start (log: test-results/e2e/wrangler.log): ${(error as Error).message}`);
  }
  return teardown;
}
