// @ts-check
// `npm run bench:overhead`: what the public-API plumbing costs per request.
//
// Starts the Worker the way `npm run dev` does (`wrangler dev`, local D1/DOs) but on a free port with a throw-away
// persistence directory, creates an account with secret keys (scopes `account` and `email`) through the operator API,
// then drives three routes of the same Worker with a closed-loop load generator (node:http, keep-alive,
// BENCH_CONCURRENCY requests in flight):
//
//   GET /healthz          no middleware beyond the request id: the floor (routing, wrangler's local proxy, loopback)
//   GET /api/v1/account   request log + secret-key lookup (D1) + checks + rate limiter (DO) + credits snapshot (DO)
//                         + account row (D1) + JSON envelope
//   POST /api/v1/email    {"email": "deliverable@service.test"}: a test address, answered from the canned answers (no
//                         DNS, no SMTP, no credits) but through the whole paid walk: key check, rate limiter, the
//                         credits balance, the policy stamp, request log, JSON envelope
//
// All three are measured in alternating blocks (healthz, account, email, then email, account, healthz, ...) so drift
// (JIT, caches, a busy neighbour) hits them alike. Prints p50/p99/req/s and each route's p50 ratio to /healthz against
// the target <= 1.5x, then the same routes one request at a time (unloaded latency: at concurrency 8 on a 2-core
// machine p50 is mostly queueing, i.e. the ratio of CPU per request), again with the ratios against the target. The
// Worker's own figures (GET /admin/v1/round-trips, reset right before each measured phase) then give per route and
// phase the storage round trips per request (DO, D1, queue, R2; before and after the answer) and the Worker-measured
// time to the answer. Last, BENCH_PROFILE_REQUESTS more requests per route and concurrency run under the inspector's
// CPU profiler (bench/lib/cpu-profile.mjs): the Worker's CPU per request of each route, with its heaviest functions,
// the profiles kept as bench/results/overhead-<route>-c<n>.cpuprofile. Writes the figures to
// bench/results/overhead.json. Exits 1 if any request was not answered 200 (the figures would then not be the success
// path), or with BENCH_ENFORCE=1 when a ratio misses the target.
//
// The 5 requests/second/key limit: driving one key at hundreds of requests per second would measure mostly 429s (which
// skip the credits/account work), and pacing one key at 5/s would measure an idle server. Instead the keyed routes
// rotate round-robin over one pool of keys of the same account, sized from the measured /healthz rate (an upper bound
// for the keyed routes, which do strictly more, and only one route runs at a time) so that each key sees at most ~4
// requests per second, and a client-side guard never sends a 5th request on a key within 1.1 s of its 4th-last one (it
// waits instead, and those waits are reported). Every request therefore runs the full success path, including a real
// rate-limiter hit on a warm per-key limiter object, exactly as a well-behaved client below its limit would. The
// warm-up touches every key once on each keyed route so no cold limiter object or key row is measured.
//
// Caveats: load generator and workerd share the machine's cores; every request also passes through wrangler dev's
// local proxy worker (a second workerd process), which adds the same fixed cost to every route and so pulls the ratios
// towards 1 ("added ms" is reported next to them). wrangler runs with --log-level warn here (BENCH_WRANGLER_LOG_LEVEL).
// The CPU profile samples wall-clock time and counts the isolate's Durable Objects too (wrangler dev runs them in the
// same isolate) and wrangler's dev-only middleware facade: compare routes of one run, on an idle machine.
// Knobs: BENCH_CONCURRENCY, BENCH_REQUESTS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_SERIAL_REQUESTS, BENCH_TIMEOUT_MS,
// BENCH_PROFILE_REQUESTS;
// LOCAL_PORT_RANGE (scripts/lib/local.mjs) keeps the ports this bench picks (wrangler's HTTP and inspector) in a range.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size, statusCounts } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { alternate, keepAliveAgent, keyPool, keysFor, printTable, route, round2, send } from "./lib/load.mjs";
import { printRoundTrips, readRoundTrips, resetRoundTrips, summariseRoute } from "./lib/round-trips.mjs";
import { connectProfiler, printCpu, profileRoutes } from "./lib/cpu-profile.mjs";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const CONCURRENCY = num("BENCH_CONCURRENCY", 8);
const REQUESTS = size("BENCH_REQUESTS", 3_000, 24); // measured, per route
const WARMUP = size("BENCH_WARMUP", 400, 8); // per route (the keyed routes' warm-ups also cover every key once)
const ROUNDS = size("BENCH_ROUNDS", 6, 2); // blocks per route, alternating
const SERIAL_REQUESTS = size("BENCH_SERIAL_REQUESTS", 500, 8); // per route, concurrency 1 (0 skips)
// Per route and concurrency, after the timed blocks: requests run under the inspector's CPU profiler (0 skips).
const PROFILE_REQUESTS = size("BENCH_PROFILE_REQUESTS", 300, 8);
// Per-request "[wrangler:info] GET ... 200" lines cost wrangler's Node process CPU that the Worker then lacks on a
// small machine (and that production does not have); warnings and errors still reach bench/results/wrangler.log.
const LOG_LEVEL = process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn";
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 8 * 60_000);
const TARGET_RATIO = 1.5;
const MAX_KEYS = size("BENCH_MAX_KEYS", 2_000, 10);
const ADMIN_TOKEN = "bench-admin-token";
const TEST_ADDRESS = "deliverable@service.test";
const RESULTS_DIR = join(ROOT, "bench", "results");

const held = resources();
await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/wrangler.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Runs from src/ (not frozen), as npm run dev does.
  const { base, inspector } = await startWorker({
    held,
    dir: held.tempDir("overhead-bench-"),
    vars: { ADMIN_TOKEN },
    log: "wrangler.log",
    frozen: false,
    logLevel: LOG_LEVEL,
  });

  const agent = keepAliveAgent(CONCURRENCY);
  const profiler = PROFILE_REQUESTS > 0 ? await connectProfiler(inspector) : null;
  const save = (name, text) => writeFileSync(join(RESULTS_DIR, `overhead-${name}`), text);
  const cpuOf = (concurrency) =>
    profiler && profileRoutes(profiler, routes(), { agent, base, requests: PROFILE_REQUESTS, concurrency, save });
  const admin = adminClient(base, ADMIN_TOKEN);
  const healthzProbe = route("GET /healthz", "/healthz", () => ({}));

  // The healthz rate sizes the key pool (see the header comment).
  await healthzProbe.run(agent, base, WARMUP, CONCURRENCY, { record: false });
  const probe = await healthzProbe.run(agent, base, Math.min(REQUESTS, 1_000), CONCURRENCY, { record: false });
  const keysNeeded = keysFor(probe.count / probe.seconds);
  const keyCount = Math.min(MAX_KEYS, Math.max(CONCURRENCY * 2, keysNeeded));
  console.log(
    `[bench] /healthz runs ~${Math.round(probe.count / probe.seconds)} req/s here; creating ${keyCount} secret keys`,
  );

  const keys = await createKeys(admin, keyCount);
  let pool = keyPool(keys);
  // Route names as the Worker's figures name them (method and matched pattern), so both tables line up.
  const routes = () => [
    route("GET /healthz", "/healthz", () => ({})),
    route("GET /api/v1/account", "/api/v1/account", async () => ({ key: await pool.next() })),
    route("POST /api/v1/email", "/api/v1/email", async () => ({
      method: "POST",
      key: await pool.next(),
      body: { email: TEST_ADDRESS },
    })),
  ];

  console.log(
    `[bench] warm-up, then ${REQUESTS} requests per route in ${ROUNDS} alternating blocks, concurrency ${CONCURRENCY}`,
  );
  const [warmHealthz, warmAccount, warmEmail] = routes();
  await warmAccount.run(agent, base, Math.max(WARMUP, keyCount), CONCURRENCY, { record: false });
  await warmEmail.run(agent, base, Math.max(WARMUP, keyCount), CONCURRENCY, { record: false });
  await warmHealthz.run(agent, base, WARMUP, CONCURRENCY, { record: false });
  const failures = [];
  // The canned answer really is the success path (checked once, outside the timing).
  const sample = await send(agent, `${base}/api/v1/email`, {
    method: "POST",
    key: await pool.next(),
    body: { email: TEST_ADDRESS },
    read: true,
  });
  if (sample.status !== 200 || JSON.parse(sample.text).data?.deliverable !== "deliverable")
    failures.push(`test address answered ${sample.status} ${sample.text.slice(0, 200)}`);

  pool.waits = 0;
  await resetRoundTrips(admin);
  const loaded = phase(await alternate(routes(), agent, base, REQUESTS, ROUNDS, CONCURRENCY), CONCURRENCY);
  loaded.round_trips = await workerFigures(admin, loaded.routes);
  const loadedWaits = pool.waits;
  loaded.cpu = await cpuOf(CONCURRENCY);
  // Unloaded latency: one request at a time, so the figures are per-request cost rather than queueing behind 7 others.
  console.log(`[bench] then ${SERIAL_REQUESTS} requests per route one at a time`);
  let serial = null;
  if (SERIAL_REQUESTS > 0) {
    // One request at a time needs far fewer keys: a pool sized for the serial healthz rate keeps each key in use (so in
    // the Worker's 10-second key cache) as one steady client's key would be, instead of coming back cold every few
    // seconds. Warmed first, outside the figures.
    const serialProbe = await healthzProbe.run(agent, base, 200, 1, { record: false });
    pool = keyPool(keys.slice(0, Math.min(keys.length, Math.max(4, keysFor(serialProbe.count / serialProbe.seconds)))));
    const [, serialAccount, serialEmail] = routes();
    await serialAccount.run(agent, base, pool.size, 1, { record: false });
    await serialEmail.run(agent, base, pool.size, 1, { record: false });
    console.log(`[bench] one at a time over ${pool.size} of the keys`);
    await resetRoundTrips(admin);
    serial = phase(await alternate(routes(), agent, base, SERIAL_REQUESTS, 2, 1), 1);
    serial.round_trips = await workerFigures(admin, serial.routes);
    serial.cpu = await cpuOf(1);
  }
  profiler?.close();
  agent.destroy();

  const phases = [loaded, ...(serial ? [serial] : [])];
  for (const p of phases) {
    for (const r of p.routes)
      if (r.non_200 > 0)
        failures.push(
          `${r.route} at concurrency ${p.concurrency}: ${r.non_200} answers were not 200 ` +
            `(${JSON.stringify(r.statuses)})`,
        );
    console.log(`\nconcurrency ${p.concurrency}, ${p.routes[0].requests} requests per route:`);
    printTable(p.routes);
    console.log("");
    for (const [name, r] of Object.entries(p.ratios)) {
      console.log(
        `${`${name} p50 / healthz p50`.padEnd(40)} = ${r.ratio_p50.toFixed(2)}x   (target <= ${TARGET_RATIO}x: ` +
          `${r.target_met ? "met" : "NOT met"})` +
          `   added p50 = +${r.added_p50_ms.toFixed(2)} ms, p99 = +${r.added_p99_ms.toFixed(2)} ms`,
      );
    }
  }
  console.log("\nStorage round trips per request (mean), from the Worker's own counters (GET /admin/v1/round-trips):");
  printRoundTrips(
    phases.flatMap((p) => p.routes.map((r) => [`${r.route} (c=${p.concurrency})`, p.round_trips[r.route]])),
  );
  printCpu(phases);
  const all = phases.flatMap((p) => p.routes);
  console.log(
    `\nkeys rotated: ${keyCount}; pacing waits while measuring: ${loadedWaits + pool.waits}; 429s: ` +
      `${all.reduce((n, r) => n + (r.statuses["429"] ?? 0), 0)}`,
  );
  if (failures.length) {
    console.error("[bench] some requests were not answered as expected: the figures above are not the success path");
    for (const f of failures) console.error(`  ${f}`);
  }

  const results = {
    at: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version, wrangler: wranglerVersion() },
    config: {
      concurrency: CONCURRENCY,
      requests_per_route: loaded.routes[0].requests,
      rounds: ROUNDS,
      warmup_per_route: WARMUP,
      keys: keyCount,
      wrangler_log_level: LOG_LEVEL,
      test_address: TEST_ADDRESS,
    },
    target_ratio: TARGET_RATIO,
    ...loaded,
    unloaded: serial,
    target_met: phases.every((p) => Object.values(p.ratios).every((r) => r.target_met)),
    pacing_waits: loadedWaits + pool.waits,
    failures,
    valid: failures.length === 0,
  };
  writeFileSync(join(RESULTS_DIR, "overhead.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("[bench] wrote bench/results/overhead.json");
  const checked = checkRun({
    bench: "overhead",
    figures: Object.fromEntries(loaded.routes.map((r) => [`${r.route} p50 ms`, r.p50_ms])),
    ...statusCounts(all),
  });
  if (failures.length || checked) return 1;
  return process.env.BENCH_ENFORCE === "1" && !results.target_met ? 1 : 0;
}

/** One concurrency's summaries (healthz first) and every other route's ratios to healthz. */
function phase(routes, concurrency) {
  const [h, ...others] = routes;
  const ratios = Object.fromEntries(
    others.map((r) => {
      const ratio = r.p50_ms / h.p50_ms;
      return [
        r.route,
        {
          ratio_p50: round2(ratio),
          added_p50_ms: round2(r.p50_ms - h.p50_ms),
          added_p99_ms: round2(r.p99_ms - h.p99_ms),
          target_met: ratio <= TARGET_RATIO,
        },
      ];
    }),
  );
  return { concurrency, routes, ratios };
}

/** The Worker's figures for the measured routes since the last reset. */
async function workerFigures(admin, routes) {
  const figures = await readRoundTrips(admin);
  return Object.fromEntries(routes.map((r) => [r.route, summariseRoute(figures[r.route])]));
}

/**
 * An account (verified, free plan) with one member and `count` secret keys for both keyed routes, created 8 at a time.
 */
async function createKeys(admin, count) {
  const account = (
    await admin.call("POST", "/accounts", { email: "bench@example.com", email_verified: true, plan: "free" })
  ).data;
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench@example.com" })).data;
  const keys = [];
  let left = count;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) {
        const key = (
          await admin.call("POST", `/accounts/${account.id}/keys/secret`, {
            user_id: member.user_id,
            scopes: ["account", "email"],
          })
        ).data;
        keys.push(key.key);
      }
    }),
  );
  return keys;
}

function wranglerVersion() {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}
