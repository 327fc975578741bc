// `npm run dev`: local API on http://127.0.0.1:$PORT (default 8787) with a ready-to-use demo account.
//
//   1. .dev.vars from .dev.vars.example when missing; keys the example has and an older .dev.vars lacks are appended
//      (existing values are never changed)
//   2. the D1 migrations the local database (.wrangler/state, kept between runs) lacks, in one wrangler run
//      (scripts/lib/migrations.mjs; none pending: wrangler is not started); meanwhile the sidecars' bundles and, when
//      missing, the phone prefix tables' build
//   3. `wrangler dev` as a child process pointed at the sidecars (--var SMTP_SIDECAR_URL, ...), and the sidecars as
//      soon as they are bundled (scripts/lib/dev-sidecars.mjs: the SMTP sidecar on 127.0.0.1:$SIDECAR_PORT, default
//      8025, and the mail catcher)
//   4. once /healthz and the sidecars answer, side by side: the register, address, IP and phone datasets
//      (scripts/lib/dev-datasets.mjs; later runs only load what changed version) and the demo account and its keys
//      via the operator API (scripts/lib/dev-demo.mjs, stored in .dev-demo.json and reused on later runs while the
//      local data still has the account); then the banner
//   5. after the banner, in the background: the full IP tables of the installed packages, through the operator API,
//      when they are not loaded yet (first run, or a newer package); one line says when they are in
//
// Output: everything wrangler, the sidecars, the migrations and the loads print goes to .wrangler/dev.log (rewritten
// at each start); the terminal shows a few progress lines, the banner, failures and warnings, and after the banner
// wrangler's request lines (scripts/lib/dev-output.mjs). A start that fails shows the log's last lines.
//
// `npm run dev -- --offline` also starts the tests' stand-ins for the public internet (DNS over HTTPS, RDAP, an SMTP
// server, the datasets' publishers; test/fixtures/offline-internet.ts) on SIDECAR_PORT+1..+4, the partners of the
// network and delivery-point checks (Twilio, Vonage, Smarty, Google formats) on SIDECAR_PORT+7, the Stripe stand-in
// on +8, and points the Worker and the sidecar at them (the partners' stand-in credentials go in as vars: they open
// nothing real).
//
// Ctrl-C / SIGTERM are forwarded to wrangler; the sidecars are stopped with it; this process exits with wrangler's
// exit code.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { preparePhoneTables } from "./import-phone.mjs";
import { fullIpTablesToLoad, loadDatasets, loadFullIpTables } from "./lib/dev-datasets.mjs";
import { DEMO_EMAIL, DEMO_FILE, demoBanner, ensureDemo } from "./lib/dev-demo.mjs";
import { devOutput } from "./lib/dev-output.mjs";
import { bundleSidecars, devSidecars, sidecarPorts } from "./lib/dev-sidecars.mjs";
import {
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
const SIDECAR_PORT = Number(process.env.SIDECAR_PORT || 8025);
const SIDECAR_URL = `http://127.0.0.1:${SIDECAR_PORT}`;
const OFFLINE = process.argv.includes("--offline");
const LOG_NAME = ".wrangler/dev.log";
let out = null; // the log and the terminal (scripts/lib/dev-output.mjs), once the ports are known to be ours

const isPort = (port) => Number.isInteger(port) && port >= 1 && port <= 65535;
if (!isPort(PORT)) fail(`PORT must be a port number, got ${process.env.PORT}`);
if (!isPort(SIDECAR_PORT)) fail(`SIDECAR_PORT must be a port number, got ${process.env.SIDECAR_PORT}`);
if (SIDECAR_PORT === PORT) fail(`PORT and SIDECAR_PORT must differ (both ${PORT})`);
const PORTS = sidecarPorts(SIDECAR_PORT);
const MAIL_CATCHER_URL = `http://127.0.0.1:${PORTS.mail.MAIL_CATCHER_HTTP_PORT}/`;

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

await assertPortFree(PORT).catch((err) => fail(err.message));
await assertPortFree(SIDECAR_PORT, "SIDECAR_PORT").catch((err) => fail(err.message));
for (const [name, port] of Object.entries({ ...(OFFLINE ? PORTS.offline : {}), ...PORTS.mail }))
  await assertPortFree(port, name).catch((err) => fail(err.message));

// Only now: a second `npm run dev` stopped by the port checks must not wipe the running one's log.
out = devOutput(join(ROOT, LOG_NAME));
const started = performance.now();
const seconds = (from) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
out.say(`[dev] starting${OFFLINE ? " offline" : ""}; details go to ${LOG_NAME}`);

// The sidecars' ports and vars, their bundles and the phone tables' build need no database: they run while the
// migrations do. wrangler dev starts as soon as the migrations are in, the sidecars as soon as they are bundled.
let sidecarSpecs;
let prepared;
try {
  const phone = preparePhoneTables({ log: out.log }).catch((err) => out.warn(`[dev] phone tables: ${err.message}`));
  sidecarSpecs = await devSidecars({
    baseUrl: BASE_URL,
    sidecarPort: SIDECAR_PORT,
    secret: SMTP_SIDECAR_SECRET,
    webhooksAllowLoopback: WEBHOOKS_ALLOW_LOOPBACK,
    offline: OFFLINE,
  });
  prepared = Promise.all([bundleSidecars(sidecarSpecs), phone]);
  prepared.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled meanwhile
  const { applied } = await applyMigrations({ output: out.chunk });
  const what = applied === null ? "applied by wrangler" : applied.length ? `${applied.length} applied` : "none pending";
  out.say(`[dev] D1 migrations: ${what} (${seconds(started)})`);
} catch (err) {
  showTail("the start failed");
  fail(err.message);
}

let shuttingDown = false;
let exitCodeOverride = null;
let sidecars = [];
const stackStarted = performance.now();

out.log(`[dev] starting wrangler dev on ${BASE_URL}`);
// WIDGET_DEMO: wrangler.toml's [build] step adds the widget's demo page (/demo) to the static assets.
const wrangler = startWranglerDev({
  port: PORT,
  env: { WIDGET_DEMO: "1" },
  extraArgs: sidecarSpecs.flatMap((sidecar) => sidecar.wranglerArgs ?? []),
  stdio: "pipe",
});
out.follow(wrangler.stdout, process.stdout);
out.follow(wrangler.stderr, process.stderr, { stderr: true });

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
  await prepared;
  sidecars = sidecarSpecs.map(startSidecar);
} catch (err) {
  showTail(`a sidecar could not be prepared: ${err.message}`);
  shutdown("SIGTERM", 1);
}

if (!shuttingDown)
  try {
    const timeoutMs = Number(process.env.DEV_READY_TIMEOUT_MS ?? 90_000);
    await Promise.all([
      waitForHttp(`${BASE_URL}/healthz`, { child: wrangler, timeoutMs }),
      ...sidecarSpecs.map(
        (sidecar, i) =>
          sidecar.healthUrl &&
          waitForHttp(sidecar.healthUrl, { child: sidecars[i], name: `sidecar ${sidecar.name}`, timeoutMs }),
      ),
    ]);
    out.say(`[dev] wrangler dev and the sidecars answer (${seconds(stackStarted)})`);
  } catch (err) {
    if (!shuttingDown) {
      showTail(err.message);
      shutdown("SIGTERM", 1);
    }
  }

if (!shuttingDown && !ADMIN_TOKEN) {
  out.warn("[dev] ADMIN_TOKEN is not set in .dev.vars: the operator API is off, so no demo account was set up.");
  out.running();
} else if (!shuttingDown) {
  const loadsStarted = performance.now();
  const admin = adminClient(BASE_URL, ADMIN_TOKEN);
  const [, demo] = await Promise.all([
    loadDatasets({ baseUrl: BASE_URL, token: ADMIN_TOKEN, log: out.log, warn: out.warn }),
    ensureDemo({ admin, baseUrl: BASE_URL, log: out.say }).catch(demoFailed),
  ]);
  const ipTables = await fullIpTablesToLoad({ baseUrl: BASE_URL, token: ADMIN_TOKEN }).catch((err) => {
    out.warn(`[dev] could not tell which full IP tables are loaded: ${err.message}`);
    return [];
  });
  out.say(`[dev] datasets and demo account ready (${seconds(loadsStarted)}; ${seconds(started)} since the start)`);
  const site = { baseUrl: BASE_URL, port: PORT, sidecarUrl: SIDECAR_URL, mailCatcherUrl: MAIL_CATCHER_URL };
  if (demo) {
    const ipTablesLoading = ipTables.length > 0;
    for (const line of demoBanner(demo, { ...site, offline: OFFLINE, logFile: LOG_NAME, ipTablesLoading }))
      out.say(line);
  } else if (ipTables.length) out.say(`[dev] IP tables loading in the background (see ${LOG_NAME})`);
  // A moment later: wrangler's lines for the requests made above may still be on their way through the pipe.
  setTimeout(out.running, 1_000);
  if (ipTables.length) loadIpTablesInBackground(ipTables);
}

/** Starts one sidecar; if it exits on its own, the whole session stops, so a missing sidecar is never silent. */
function startSidecar(sidecar) {
  out.log(`[dev] starting sidecar ${sidecar.name}`);
  const child = startNodeScript(join(ROOT, sidecar.script), {
    args: sidecar.args ?? [],
    env: sidecar.env ?? {},
    stdio: "pipe",
  });
  out.follow(child.stdout, process.stdout);
  out.follow(child.stderr, process.stderr, { stderr: true });
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    out.warn(`[dev] sidecar ${sidecar.name} exited (${signal ?? `exit ${code}`}); stopping`);
    shutdown("SIGTERM", 1);
  });
  return child;
}

/** The full IP tables after the banner; one line when they are in (or why not). */
function loadIpTablesInBackground(datasets) {
  out.log(`[dev] loading the full IP tables in the background: ${datasets.join(", ")}`);
  loadFullIpTables({ baseUrl: BASE_URL, token: ADMIN_TOKEN, datasets, log: out.log }).then(
    ({ records, seconds: took }) =>
      shuttingDown ||
      out.say(
        `[dev] IP tables loaded in the background: ${datasets.join(", ")}, ${records.toLocaleString("en-US")} rows ` +
          `in ${took} s; IP answers now cite the full tables`,
      ),
    (err) =>
      shuttingDown ||
      out.warn(`[dev] the full IP tables did not load: ${err.message} (see ${LOG_NAME}); the samples still answer`),
  );
}

/** The server keeps running when the demo set-up fails: a failing seed is something to debug against it. */
function demoFailed(err) {
  out.warn(`[dev] could not set up the demo account: ${err.message}`);
  if (err.code === "VALIDATION_FAILED" && !existsSync(DEMO_FILE)) {
    out.warn(`[dev] ${DEMO_EMAIL} probably exists in the local data already but .dev-demo.json is gone;`);
    out.warn("[dev] remove .wrangler/state (the local data) to start over, or use `npm run admin -- help`.");
  }
  return null;
}

/** What the terminal did not show may say why a start failed: the log's last lines. */
function showTail(why) {
  const lines = out.tail().map((line) => `  | ${line}`);
  process.stderr.write(`[dev] ${why}; the last lines of ${LOG_NAME}:\n${lines.join("\n")}\n`);
}

function fail(message) {
  if (out) out.warn(`[dev] ${message}`);
  else console.error(`[dev] ${message}`);
  process.exit(1);
}
