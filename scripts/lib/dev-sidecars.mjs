// The Node processes `npm run dev` starts next to `wrangler dev` (moved here from scripts/dev.mjs, which starts them).
//
// ── Sidecar hook ─────────────────────────────────────────────────────────────────────────────────────────────────────
// Local Node processes the Worker needs next to it. Each entry:
//   { name, script: "path/from/repo/root.mjs", source?: "test/fixtures/x.ts", args: [], env: {}, healthUrl?,
//     wranglerArgs?: [] }
// `source`, when given, is bundled into `script` first (bundleSidecars). Each is started with this Node while
// `wrangler dev` starts (in its own process group; stdout to .wrangler/dev.log, stderr shown) and stopped together
// with wrangler; `wranglerArgs` are added to `wrangler dev`; dev waits for `healthUrl` before the banner. If one
// exits on its own, the whole dev session is stopped so a missing sidecar is never silent.
//
// smtp: the SMTP sidecar (workers/smtp-sidecar) that runs mailbox handshakes, since a Worker cannot open port 25. It
// shares SMTP_SIDECAR_SECRET from .dev.vars (its SIDECAR_SECRET) and dials port 25 of each MX; anything else of its
// configuration (SMTP_PORT, SIDECAR_ALLOW_LOOPBACK, SMTP_HELO_NAME, ...) passes through from this environment. Webhook
// attempts go through it too (pinned to the checked address), so when .dev.vars lets webhooks reach loopback
// receivers (WEBHOOKS_ALLOW_LOOPBACK=true) the sidecar allows loopback as well, unless SIDECAR_ALLOW_LOOPBACK says.
import { join } from "node:path";
import { ROOT } from "./local.mjs";

/** The ports around SIDECAR_PORT: the mail catcher takes +5 and +6; offline, the stand-ins +1..+4, +7 and +8. */
export function sidecarPorts(sidecarPort) {
  return {
    offline: {
      OFFLINE_DOH_PORT: sidecarPort + 1,
      OFFLINE_RDAP_PORT: sidecarPort + 2,
      OFFLINE_SMTP_PORT: sidecarPort + 3,
      OFFLINE_PUBLISHERS_PORT: sidecarPort + 4,
      OFFLINE_PARTNERS_PORT: sidecarPort + 7,
      OFFLINE_STRIPE_PORT: sidecarPort + 8,
    },
    // The local mail catcher (docs/mail.md): every message the service sends lands there.
    mail: { MAIL_CATCHER_SMTP_PORT: sidecarPort + 5, MAIL_CATCHER_HTTP_PORT: sidecarPort + 6 },
  };
}

/** Every sidecar of this run; the ones with a `source` need bundleSidecars() before they start. */
export async function devSidecars({ baseUrl, sidecarPort, secret, webhooksAllowLoopback, offline }) {
  const ports = sidecarPorts(sidecarPort);
  const sidecarUrl = `http://127.0.0.1:${sidecarPort}`;
  const smtp = {
    name: "smtp",
    script: "workers/smtp-sidecar/server.mjs",
    env: {
      SIDECAR_SECRET: secret,
      SIDECAR_PORT: String(sidecarPort),
      SIDECAR_HOST: "127.0.0.1",
      // Customer mail (the Worker's MAIL_TRANSPORT=smtp) goes to the local catcher.
      SMTP_RELAY_HOST: "127.0.0.1",
      SMTP_RELAY_PORT: String(ports.mail.MAIL_CATCHER_SMTP_PORT),
      ...(process.env.SIDECAR_ALLOW_LOOPBACK === undefined && webhooksAllowLoopback === "true"
        ? { SIDECAR_ALLOW_LOOPBACK: "1" }
        : {}),
      // Offline, every MX is the stand-in SMTP server on loopback, and MX names (mta5.am0.yahoodns.net for the
      // provider samples) resolve through the stand-in DNS-over-HTTPS resolver. Nearly every sample domain shares
      // 127.0.0.1, so the pacing of refused recipients and connections per MX address (docs/email.md, "Pacing")
      // is lifted: it would hold back the samples' unknown users after four.
      ...(offline
        ? {
            SMTP_PORT: String(ports.offline.OFFLINE_SMTP_PORT),
            SMTP_PACE_REFUSALS: process.env.SMTP_PACE_REFUSALS ?? "100000",
            SMTP_PACE_CONNECTS: process.env.SMTP_PACE_CONNECTS ?? "100000",
            SIDECAR_ALLOW_LOOPBACK: "1",
            SIDECAR_DOH_URL: `http://127.0.0.1:${ports.offline.OFFLINE_DOH_PORT}/dns-query`,
          }
        : {}),
    },
    healthUrl: `${sidecarUrl}/healthz`,
    wranglerArgs: vars({ SMTP_SIDECAR_URL: sidecarUrl, MAIL_TRANSPORT: "smtp", MAIL_BASE_URL: baseUrl }),
  };
  return [smtp, mailCatcher(ports.mail), ...(offline ? [await offlineInternet(ports.offline)] : [])];
}

const vars = (entries) => Object.entries(entries).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
const asEnv = (ports) => Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)]));

/**
 * Bundles the sidecars written in TypeScript (test/fixtures) into .wrangler/ for Node (esbuild). Apart from the
 * specs, so `wrangler dev`, which needs only their ports, can start meanwhile.
 */
export async function bundleSidecars(specs) {
  const { build } = await import("esbuild");
  const options = { bundle: true, platform: "node", format: "esm", packages: "external", logLevel: "warning" };
  await Promise.all(
    specs
      .filter((spec) => spec.source)
      .map((spec) => build({ ...options, entryPoints: [join(ROOT, spec.source)], outfile: join(ROOT, spec.script) })),
  );
}

/** The mail catcher (test/fixtures/mail-catcher-main.ts), bundled like the offline stand-ins. */
function mailCatcher(ports) {
  return {
    name: "mail-catcher",
    source: "test/fixtures/mail-catcher-main.ts",
    script: ".wrangler/mail-catcher.mjs",
    env: asEnv(ports),
    healthUrl: `http://127.0.0.1:${ports.MAIL_CATCHER_HTTP_PORT}/messages`,
  };
}

/** The offline stand-ins (test/fixtures/offline-internet.ts), started like any other sidecar. */
async function offlineInternet(ports) {
  const doh = `http://127.0.0.1:${ports.OFFLINE_DOH_PORT}/dns-query`;
  // The scheduled dataset refresh fetches from the publishers' stand-in (docs/operations.md, "Dataset refresh").
  const { publisherVars } = await import("../../test/fixtures/publishers.ts");
  // `network: true` and `delivery_point: true` ask the partners' stand-in (docs/partners.md, "Stand-ins").
  const { partnerVars } = await import("../../test/fixtures/partners.ts");
  // Purchases in the dashboard go to the Stripe stand-in, with the tests' keys (docs/dashboard.md#purchases).
  const stripe = await import("../../test/fixtures/stripe.ts");
  return {
    name: "offline-internet",
    source: "test/fixtures/offline-internet.ts",
    script: ".wrangler/offline-internet.mjs",
    env: asEnv(ports),
    healthUrl: `${doh}?name=acme.example&type=MX`,
    wranglerArgs: vars({
      DOH_URL: doh,
      RDAP_BASE_URL: `http://127.0.0.1:${ports.OFFLINE_RDAP_PORT}/`,
      ...publisherVars(`http://127.0.0.1:${ports.OFFLINE_PUBLISHERS_PORT}`),
      ...partnerVars(`http://127.0.0.1:${ports.OFFLINE_PARTNERS_PORT}`),
      STRIPE_API_URL: `http://127.0.0.1:${ports.OFFLINE_STRIPE_PORT}`,
      STRIPE_SECRET_KEY: stripe.STRIPE_TEST_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: stripe.STRIPE_TEST_WEBHOOK_SECRET,
      STRIPE_PRICES: stripe.STRIPE_TEST_PRICES,
    }),
  };
}
