// `npm run dev`: local API on http://127.0.0.1:$PORT (default 8787) with a ready-to-use demo account.
//
//   1. .dev.vars from .dev.vars.example when missing; keys the example has and an older .dev.vars lacks are appended
//      (existing values are never changed)
//   2. D1 migrations applied to the local database (.wrangler/state, kept between runs); then the full IP range tables
//      of the installed packages (country, ASN, city: scripts/lib/local-ip-tables.mjs) written into it, on the first
//      run and whenever a package version changes (a minute or so; later runs skip it)
//   3. sidecars (see SIDECARS: the SMTP sidecar on 127.0.0.1:$SIDECAR_PORT, default 8025), then `wrangler dev` as a
//      child process pointed at it (--var SMTP_SIDECAR_URL), output passed through
//   4. once /healthz and the sidecars answer: the register samples and the phone prefix tables (first run: a minute or
//      so; later runs only when a version changed), then the demo account and its keys via the operator API, stored
//      in .dev-demo.json and reused on later runs while the local data still has the account
//
// `npm run dev -- --offline` also starts the tests' stand-ins for the public internet (DNS over HTTPS, RDAP, an SMTP
// server, the datasets' publishers; test/fixtures/offline-internet.ts) on SIDECAR_PORT+1..+4, the partners of the
// network and delivery-point checks (Twilio, Vonage, Smarty, Google formats) on SIDECAR_PORT+7, and points the Worker
// and the sidecar at them (the partners' stand-in credentials go in as vars: they open nothing real).
//
// Ctrl-C / SIGTERM are forwarded to wrangler; the sidecars are stopped with it; this process exits with wrangler's
// exit code.
import { loadSamples } from "./import-register.mjs";
import { quietOutsideFailures } from "./lib/quiet-failures.mjs";
import { loadAddressData } from "./import-address.mjs";
import { loadIpSamples } from "./import-ip.mjs";
import { loadFullIpTables, localD1File } from "./lib/local-ip-tables.mjs";
import { importPhoneDatasets } from "./import-phone.mjs";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ApiError,
  ROOT,
  adminClient,
  applyMigrations,
  assertPortFree,
  ensureDevVars,
  isRunning,
  readDevVars,
  requireNode22,
  signalTree,
  startNodeScript,
  startWranglerDev,
  stopProcess,
  waitForHttp,
} from "./lib/local.mjs";

requireNode22();

const PORT = Number(process.env.PORT ?? 8787);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const DEMO_FILE = join(ROOT, ".dev-demo.json");
const DEMO_EMAIL = "demo@example.com";
/** Hosts the demo page may be opened at: the publishable key's allowed domains. */
const DEMO_PAGE_HOSTS = ["localhost", "127.0.0.1"];
const DEMO_PACK_CREDITS = 900; // + the free plan's 100 monthly grant = 1,000
const SANDBOX_KEY = "sk_test_public_sandbox";
const SIDECAR_PORT = Number(process.env.SIDECAR_PORT || 8025);
const SIDECAR_URL = `http://127.0.0.1:${SIDECAR_PORT}`;

const OFFLINE = process.argv.includes("--offline");
// The mail catcher takes SIDECAR_PORT+5 and +6; the partners' stand-in +7; the Stripe stand-in (dashboard purchases)
// +8.
const OFFLINE_PORTS = {
  OFFLINE_DOH_PORT: SIDECAR_PORT + 1,
  OFFLINE_RDAP_PORT: SIDECAR_PORT + 2,
  OFFLINE_SMTP_PORT: SIDECAR_PORT + 3,
  OFFLINE_PUBLISHERS_PORT: SIDECAR_PORT + 4,
  OFFLINE_PARTNERS_PORT: SIDECAR_PORT + 7,
  OFFLINE_STRIPE_PORT: SIDECAR_PORT + 8,
};
// The local mail catcher (docs/mail.md): every message the service sends lands there, shown at MAIL_CATCHER_URL.
const MAIL_PORTS = { MAIL_CATCHER_SMTP_PORT: SIDECAR_PORT + 5, MAIL_CATCHER_HTTP_PORT: SIDECAR_PORT + 6 };
const MAIL_CATCHER_URL = `http://127.0.0.1:${MAIL_PORTS.MAIL_CATCHER_HTTP_PORT}/`;

const isPort = (port) => Number.isInteger(port) && port >= 1 && port <= 65535;
if (!isPort(PORT)) fail(`PORT must be a port number, got ${process.env.PORT}`);
if (!isPort(SIDECAR_PORT)) fail(`SIDECAR_PORT must be a port number, got ${process.env.SIDECAR_PORT}`);
if (SIDECAR_PORT === PORT) fail(`PORT and SIDECAR_PORT must differ (both ${PORT})`);

const devVars = ensureDevVars();
if (devVars.created) console.log("[dev] created .dev.vars from .dev.vars.example");
if (devVars.added.length)
  console.log(`[dev] added ${devVars.added.join(", ")} to .dev.vars from .dev.vars.example (existing values kept)`);
const { ADMIN_TOKEN, SMTP_SIDECAR_SECRET, WEBHOOKS_ALLOW_LOOPBACK } = readDevVars();
if (!SMTP_SIDECAR_SECRET || SMTP_SIDECAR_SECRET.length < 16) {
  fail(
    "SMTP_SIDECAR_SECRET in .dev.vars must be set (at least 16 characters): the Worker signs sidecar requests with it",
  );
}

/**
 * ── Sidecar hook ──────────────────────────────────────────────────────────────────────────────────────────────────
 * Local Node processes the Worker needs next to it. Each entry:
 *   { name, script: "path/from/repo/root.mjs", args: [], env: {}, healthUrl?, wranglerArgs?: [] }
 * Each is started with this Node before `wrangler dev` (in its own process group, output passed through) and stopped
 * together with wrangler; `wranglerArgs` are added to `wrangler dev`; dev waits for `healthUrl` before the banner.
 * If one exits on its own, the whole dev session is stopped so a missing sidecar is never silent.
 *
 * smtp: the SMTP sidecar (workers/smtp-sidecar) that runs mailbox handshakes, since a Worker cannot open port 25. It
 * shares SMTP_SIDECAR_SECRET from .dev.vars (its SIDECAR_SECRET) and dials port 25 of each MX; anything else of its
 * configuration (SMTP_PORT, SIDECAR_ALLOW_LOOPBACK, SMTP_HELO_NAME, ...) passes through from this environment. Webhook
 * attempts go through it too (pinned to the checked address), so when .dev.vars lets webhooks reach loopback
 * receivers (WEBHOOKS_ALLOW_LOOPBACK=true) the sidecar allows loopback as well, unless SIDECAR_ALLOW_LOOPBACK says.
 */
const SIDECARS = [
  {
    name: "smtp",
    script: "workers/smtp-sidecar/server.mjs",
    env: {
      SIDECAR_SECRET: SMTP_SIDECAR_SECRET,
      SIDECAR_PORT: String(SIDECAR_PORT),
      SIDECAR_HOST: "127.0.0.1",
      // Customer mail (the Worker's MAIL_TRANSPORT=smtp) goes to the local catcher.
      SMTP_RELAY_HOST: "127.0.0.1",
      SMTP_RELAY_PORT: String(MAIL_PORTS.MAIL_CATCHER_SMTP_PORT),
      ...(process.env.SIDECAR_ALLOW_LOOPBACK === undefined && WEBHOOKS_ALLOW_LOOPBACK === "true"
        ? { SIDECAR_ALLOW_LOOPBACK: "1" }
        : {}),
      // Offline, every MX is the stand-in SMTP server on loopback, and MX names (mta5.am0.yahoodns.net for the
      // provider samples) resolve through the stand-in DNS-over-HTTPS resolver.
      ...(OFFLINE
        ? {
            SMTP_PORT: String(OFFLINE_PORTS.OFFLINE_SMTP_PORT),
            SIDECAR_ALLOW_LOOPBACK: "1",
            SIDECAR_DOH_URL: `http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_DOH_PORT}/dns-query`,
          }
        : {}),
    },
    healthUrl: `${SIDECAR_URL}/healthz`,
    wranglerArgs: [
      "--var",
      `SMTP_SIDECAR_URL:${SIDECAR_URL}`,
      "--var",
      "MAIL_TRANSPORT:smtp",
      "--var",
      `MAIL_BASE_URL:${BASE_URL}`,
    ],
  },
  await mailCatcher(),
  ...(OFFLINE ? [await offlineInternet()] : []),
];

/** The mail catcher (test/fixtures/mail-catcher-main.ts), bundled like the offline stand-ins. */
async function mailCatcher() {
  const { build } = await import("esbuild");
  const script = ".wrangler/mail-catcher.mjs";
  await build({
    entryPoints: [join(ROOT, "test/fixtures/mail-catcher-main.ts")],
    outfile: join(ROOT, script),
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "warning",
  });
  return {
    name: "mail-catcher",
    script,
    env: Object.fromEntries(Object.entries(MAIL_PORTS).map(([name, port]) => [name, String(port)])),
    healthUrl: `${MAIL_CATCHER_URL}messages`,
  };
}

/** The offline stand-ins, bundled from TypeScript (esbuild) into .wrangler/ and started like any other sidecar. */
async function offlineInternet() {
  const { build } = await import("esbuild");
  const script = ".wrangler/offline-internet.mjs";
  await build({
    entryPoints: [join(ROOT, "test/fixtures/offline-internet.ts")],
    outfile: join(ROOT, script),
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "warning",
  });
  const doh = `http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_DOH_PORT}/dns-query`;
  // The scheduled dataset refresh fetches from the publishers' stand-in (docs/operations.md, "Dataset refresh").
  const { publisherVars } = await import("../test/fixtures/publishers.ts");
  const refreshVars = Object.entries(
    publisherVars(`http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_PUBLISHERS_PORT}`),
  ).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  // `network: true` and `delivery_point: true` ask the partners' stand-in (docs/partners.md, "Stand-ins").
  const { partnerVars } = await import("../test/fixtures/partners.ts");
  const partnerArgs = Object.entries(partnerVars(`http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_PARTNERS_PORT}`)).flatMap(
    ([name, value]) => ["--var", `${name}:${value}`],
  );
  // Purchases in the dashboard go to the Stripe stand-in, with the tests' keys (docs/dashboard.md#purchases).
  const stripe = await import("../test/fixtures/stripe.ts");
  const stripeVars = Object.entries({
    STRIPE_API_URL: `http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_STRIPE_PORT}`,
    STRIPE_SECRET_KEY: stripe.STRIPE_TEST_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: stripe.STRIPE_TEST_WEBHOOK_SECRET,
    STRIPE_PRICES: stripe.STRIPE_TEST_PRICES,
  }).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  return {
    name: "offline-internet",
    script,
    env: Object.fromEntries(Object.entries(OFFLINE_PORTS).map(([name, port]) => [name, String(port)])),
    healthUrl: `${doh}?name=acme.example&type=MX`,
    wranglerArgs: [
      "--var",
      `DOH_URL:${doh}`,
      "--var",
      `RDAP_BASE_URL:http://127.0.0.1:${OFFLINE_PORTS.OFFLINE_RDAP_PORT}/`,
      ...refreshVars,
      ...partnerArgs,
      ...stripeVars,
    ],
  };
}

await assertPortFree(PORT).catch((err) => fail(err.message));
await assertPortFree(SIDECAR_PORT, "SIDECAR_PORT").catch((err) => fail(err.message));
if (OFFLINE)
  for (const [name, port] of Object.entries(OFFLINE_PORTS))
    await assertPortFree(port, name).catch((err) => fail(err.message));
for (const [name, port] of Object.entries(MAIL_PORTS))
  await assertPortFree(port, name).catch((err) => fail(err.message));
console.log("[dev] applying D1 migrations to the local database");
await applyMigrations().catch((err) => fail(err.message));
try {
  const file = localD1File(ROOT);
  if (!file) throw new Error("the local D1 database file was not found after the migrations");
  const { loaded } = await loadFullIpTables({ file, log: (line) => console.log(line) });
  if (!loaded.length)
    console.log("[dev] full IP tables (country, ASN, city) already loaded at the installed package versions");
} catch (err) {
  // Answers then come from the shipped samples (loaded below): the server is still useful.
  console.error(`[dev] could not load the full IP tables: ${err.message}`);
}

let shuttingDown = false;
let exitCodeOverride = null;

const sidecars = SIDECARS.map((sidecar) => {
  console.log(`[dev] starting sidecar ${sidecar.name}`);
  const child = startNodeScript(join(ROOT, sidecar.script), { args: sidecar.args ?? [], env: sidecar.env ?? {} });
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    console.error(`[dev] sidecar ${sidecar.name} exited (${signal ?? `exit ${code}`}); stopping`);
    shutdown("SIGTERM", 1);
  });
  return child;
});

console.log(`[dev] starting wrangler dev on ${BASE_URL}`);
// WIDGET_DEMO: wrangler.toml's [build] step adds the widget's demo page (/demo) to the static assets.
const wrangler = startWranglerDev({
  port: PORT,
  env: { WIDGET_DEMO: "1" },
  extraArgs: SIDECARS.flatMap((sidecar) => sidecar.wranglerArgs ?? []),
  stdio: "pipe",
});
quietOutsideFailures(wrangler.stdout, process.stdout);
quietOutsideFailures(wrangler.stderr, process.stderr);

wrangler.on("exit", async (code, signal) => {
  shuttingDown = true;
  await Promise.all(sidecars.map((child) => stopProcess(child)));
  signalTree(wrangler, "SIGKILL"); // anything of wrangler's (workerd) that outlived it
  process.exit(exitCodeOverride ?? code ?? 128 + (signal === "SIGINT" ? 2 : 15));
});

/**
 * Forwards a signal to wrangler once. A terminal Ctrl-C can arrive twice at once (from the terminal and forwarded by
 * npm), so only a repeat more than a second later counts as "stop now" and kills wrangler outright.
 */
let firstSignalAt = 0;
function shutdown(signal, exitCode = null) {
  if (exitCode !== null) exitCodeOverride = exitCode;
  if (shuttingDown) {
    if (firstSignalAt && Date.now() - firstSignalAt > 1_000) signalTree(wrangler, "SIGKILL");
    return;
  }
  shuttingDown = true;
  firstSignalAt = Date.now();
  if (isRunning(wrangler)) process.kill(wrangler.pid, signal);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(signal, () => shutdown(signal === "SIGHUP" ? "SIGTERM" : signal));
process.on("exit", () => {
  for (const child of [wrangler, ...sidecars]) if (isRunning(child)) signalTree(child, "SIGKILL");
});

try {
  const timeoutMs = Number(process.env.DEV_READY_TIMEOUT_MS ?? 90_000);
  await Promise.all([
    waitForHttp(`${BASE_URL}/healthz`, { child: wrangler, timeoutMs }),
    ...SIDECARS.map(
      (sidecar, i) =>
        sidecar.healthUrl &&
        waitForHttp(sidecar.healthUrl, { child: sidecars[i], name: `sidecar ${sidecar.name}`, timeoutMs }),
    ),
  ]);
} catch (err) {
  if (!shuttingDown) {
    console.error(`[dev] ${err.message}`);
    shutdown("SIGTERM", 1);
  }
}

if (!shuttingDown) {
  if (!ADMIN_TOKEN) {
    console.error("[dev] ADMIN_TOKEN is not set in .dev.vars: the operator API is off, so no demo account was set up.");
  } else {
    try {
      await loadSamples({
        baseUrl: BASE_URL,
        token: ADMIN_TOKEN,
        log: (line) => console.log(line.replace("[import]", "[dev]")),
      });
    } catch (err) {
      console.error(`[dev] could not load the register samples: ${err.message}`);
    }
    try {
      await loadAddressData({
        baseUrl: BASE_URL,
        token: ADMIN_TOKEN,
        log: (line) => console.log(line.replace("[import]", "[dev]")),
      });
    } catch (err) {
      console.error(`[dev] could not load the address datasets: ${err.message}`);
    }
    try {
      await loadIpSamples({
        baseUrl: BASE_URL,
        token: ADMIN_TOKEN,
        log: (line) => console.log(line.replace("[import]", "[dev]")),
      });
    } catch (err) {
      console.error(`[dev] could not load the IP dataset samples: ${err.message}`);
    }
    try {
      await importPhoneDatasets({
        baseUrl: BASE_URL,
        token: ADMIN_TOKEN,
        log: (line) => console.log(line.replace("[phone]", "[dev]")),
      });
    } catch (err) {
      console.error(`[dev] could not load the phone prefix tables: ${err.message}`);
    }
    try {
      printDemo(await ensureDemo(adminClient(BASE_URL, ADMIN_TOKEN)));
    } catch (err) {
      // The server keeps running: a failing seed is something to debug against it.
      console.error(`[dev] could not set up the demo account: ${err.message}`);
      if (err.code === "VALIDATION_FAILED" && !existsSync(DEMO_FILE)) {
        console.error(`[dev] ${DEMO_EMAIL} probably exists in the local data already but .dev-demo.json is gone;`);
        console.error("[dev] remove .wrangler/state (the local data) to start over, or use `npm run admin -- help`.");
      }
    }
  }
}

/**
 * Creates whatever part of the demo set-up is missing, saving after each step, so an interrupted run resumes instead
 * of tripping over the already-created account. Keys are only shown once by the API, hence the file.
 */
async function ensureDemo(admin) {
  let demo = existsSync(DEMO_FILE) ? JSON.parse(readFileSync(DEMO_FILE, "utf8")) : {};
  const save = () => writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`);
  let account = null;

  if (demo.account_id) {
    try {
      account = (await admin.call("GET", `/accounts/${demo.account_id}`)).data;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      console.log(`[dev] ${demo.account_id} from .dev-demo.json is not in the local data; creating a new demo account`);
      demo = {};
    }
  }
  if (!account) {
    account = (await admin.call("POST", "/accounts", { email: DEMO_EMAIL, email_verified: true, plan: "free" })).data;
    demo = { account_id: account.id, email: account.email };
    save();
  }
  if (!demo.pack_credits_added) {
    account = (
      await admin.call("POST", `/accounts/${demo.account_id}/credits`, {
        bucket: "pack",
        amount: DEMO_PACK_CREDITS,
        note: "npm run dev demo credits",
      })
    ).data;
    demo.pack_credits_added = DEMO_PACK_CREDITS;
    save();
  }
  if (!demo.user_id) {
    demo.user_id = (
      await admin.call("POST", `/accounts/${demo.account_id}/members`, { email: DEMO_EMAIL })
    ).data.user_id;
    save();
  }
  if (demo.secret_key && !(await secretKeyWorks(demo.secret_key))) {
    console.log("[dev] the stored secret key no longer authenticates (revoked?); creating a new one");
    delete demo.secret_key;
  }
  if (!demo.secret_key) {
    const key = (await admin.call("POST", `/accounts/${demo.account_id}/keys/secret`, { user_id: demo.user_id })).data;
    Object.assign(demo, { secret_key_id: key.id, secret_key: key.key });
    save();
  }
  // The demo page works at localhost and at 127.0.0.1 (the address wrangler prints); a key saved before 127.0.0.1 was
  // allowed is replaced by a new one.
  if (demo.publishable_key && !(demo.publishable_domains ?? []).includes("127.0.0.1")) delete demo.publishable_key;
  if (!demo.publishable_key) {
    const key = (
      await admin.call("POST", `/accounts/${demo.account_id}/keys/publishable`, { allowed_domains: DEMO_PAGE_HOSTS })
    ).data;
    Object.assign(demo, { publishable_key_id: key.id, publishable_key: key.key, publishable_domains: DEMO_PAGE_HOSTS });
    save();
  }
  // A fresh sign-in link each start (they work once, for 15 minutes): the demo member is the account's owner.
  const signIn = (await admin.call("POST", `/accounts/${demo.account_id}/sign-in-link`, { email: DEMO_EMAIL })).data
    .url;
  return { ...demo, account, signIn };
}

async function secretKeyWorks(key) {
  const res = await fetch(`${BASE_URL}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status !== 401;
}

function printDemo(demo) {
  const { plan, balance } = demo.account;
  const line = "─".repeat(100);
  console.log(
    [
      "",
      line,
      `  Local API         ${BASE_URL}`,
      `  Dashboard         ${BASE_URL}/dashboard`,
      `  Sign in as demo   ${demo.signIn}`,
      `                    (works once, for 15 minutes; a new one: npm run admin -- sign-in-link ${demo.account_id} ` +
        `--email ${DEMO_EMAIL})`,
      `  Demo account      ${demo.account_id}  (${demo.email}, ${plan.name} plan, balance ${balance.total}: plan ` +
        `${balance.plan} + pack ${balance.pack})`,
      `  Member            ${demo.user_id}`,
      `  Secret key        ${demo.secret_key}  (${demo.secret_key_id}, all scopes)`,
      `  Publishable key   ${demo.publishable_key}  (${demo.publishable_key_id}, allowed domains: ` +
        `${(demo.publishable_domains ?? DEMO_PAGE_HOSTS).join(", ")})`,
      `  Sandbox key       ${SANDBOX_KEY}  (documented sample lookups only; switch: npm run admin -- sandbox on|off)`,
      `  Widget demo       http://localhost:${PORT}/demo?key=${demo.publishable_key} (or at 127.0.0.1)`,
      `                    (the sign-up form widget, /widget/v1/verify.js; edits under widget/ rebuild it)`,
      `  SMTP sidecar      ${SIDECAR_URL}  (SIDECAR_PORT; secret: SMTP_SIDECAR_SECRET in .dev.vars)`,
      ...(OFFLINE
        ? [
            `  Offline           DNS, RDAP, SMTP and the dataset publishers are local stand-ins ` +
              `(SIDECAR_PORT+1..+4): try alice@acme.example (deliverable,`,
            `                    1 credit, then a free repeat), nobody@acme.example, z@catchall.example; ` +
              `docs/offline.md lists them.`,
            `                    Partners (SIDECAR_PORT+7): POST /phone {"phone": "+16502530000", "network": true} ` +
              `(2 credits), and`,
            `                    POST /address {"address": "99999 Nonexistent Blvd, Mountain View, CA 94043", ` +
              `"country": "US", "delivery_point": true}.`,
          ]
        : [
            `                    Mailbox checks go through it: it dials port ${process.env.SMTP_PORT || 25} of each ` +
              `MX. Most dev machines and`,
            `                    networks block outbound port 25: real addresses then come back risky/unverified ` +
              `(after up to`,
            `                    the lookup's timeout), not as errors. Without internet, \`npm run dev -- ` +
              `--offline\` answers`,
            `                    sample domains locally. deliverable@service.test and the other test addresses need ` +
              `neither.`,
          ]),
      "",
      `  Try it:  curl -H "Authorization: Bearer ${demo.secret_key}" ${BASE_URL}/api/v1/account`,
      `  Operator API:  npm run admin -- help   (token: ADMIN_TOKEN in .dev.vars)`,
      `  Mail sent:     ${MAIL_CATCHER_URL}   (the local catcher; also GET /admin/v1/mail)`,
      `  Keys are saved in .dev-demo.json and reused next time. Ctrl-C stops the server.`,
      line,
      "",
    ].join("\n"),
  );
}

function fail(message) {
  console.error(`[dev] ${message}`);
  process.exit(1);
}
