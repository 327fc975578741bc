// `npm run bench:overhead`: what the public-API plumbing costs per request.
//
// Starts the Worker the way `npm run dev` does (`wrangler dev`, local D1/DOs) but on a free port with a throw-away
// persistence directory, creates an account with secret keys through the operator API, then drives two routes of the
// same Worker with a closed-loop load generator (node:http, keep-alive, BENCH_CONCURRENCY requests in flight):
//
//   GET /healthz          no middleware beyond the request id: the floor (routing, wrangler's local proxy, loopback)
//   GET /api/v1/account   request log + secret-key lookup (D1) + checks + rate limiter (DO) + credits snapshot (DO)
//                         + account row (D1) + JSON envelope
//
// Both are measured in alternating blocks (healthz, account, account, healthz, ...) so drift (JIT, caches, a busy
// neighbour) hits both alike. Prints p50/p99/req/s, the ratio account p50 / healthz p50 against the target <= 1.5x,
// then the same two routes one request at a time (unloaded latency: at concurrency 8 on a 2-core machine p50 is mostly
// queueing, i.e. the ratio of CPU per request), and writes the figures to bench/results/overhead.json. Exits 1 if any request was not answered 200 (the figures
// would then not be the success path), or with BENCH_ENFORCE=1 when the ratio misses the target.
//
// The 5 requests/second/key limit: driving one key at hundreds of requests per second would measure mostly 429s (which
// skip the credits/account work), and pacing one key at 5/s would measure an idle server. Instead the account route
// rotates round-robin over a pool of keys of the same account, sized from the measured /healthz rate (an upper bound
// for the account route, which does strictly more) so that each key sees at most ~4 requests per second, and a
// client-side guard never sends a 5th request on a key within 1.1 s of its 4th-last one (it waits instead, and those
// waits are reported). Every request therefore runs the full success path, including a real rate-limiter hit on a
// warm per-key limiter object, exactly as a well-behaved client below its limit would. The warm-up touches every key
// once so no cold limiter object is measured.
//
// Caveats: load generator and workerd share the machine's cores; every request also passes through wrangler dev's
// local proxy worker (a second workerd process), which adds the same fixed cost to both routes and so pulls the ratio
// towards 1 ("added ms" is reported next to it). wrangler runs with --log-level warn here (BENCH_WRANGLER_LOG_LEVEL).
// Knobs: BENCH_CONCURRENCY, BENCH_REQUESTS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_SERIAL_REQUESTS, BENCH_TIMEOUT_MS.
import { runBench } from "./lib/harness.mjs";
import { startWorker } from "./lib/stack.mjs";
import { alternate, keepAliveAgent, keyPool, keysFor, printTable, route, round2 } from "./lib/load.mjs";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, closeSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import {
  ROOT,
  adminClient,
  isRunning,
  requireNode22,
  signalTree,
  stopProcess,
} from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const CONCURRENCY = num("BENCH_CONCURRENCY", 8);
const REQUESTS = num("BENCH_REQUESTS", 3_000); // measured, per route
const WARMUP = num("BENCH_WARMUP", 400); // per route (the account warm-up also covers every key once)
const ROUNDS = num("BENCH_ROUNDS", 6); // blocks per route, alternating
const SERIAL_REQUESTS = num("BENCH_SERIAL_REQUESTS", 500); // per route, concurrency 1 (0 skips)
// Per-request "[wrangler:info] GET ... 200" lines cost wrangler's Node process CPU that the Worker then lacks on a
// small machine (and that production does not have); warnings and errors still reach bench/results/wrangler.log.
const LOG_LEVEL = process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn";
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 5 * 60_000);
const TARGET_RATIO = 1.5;
const MAX_KEYS = num("BENCH_MAX_KEYS", 2_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");

let wrangler = null;
let persistDir = null;
let logFd = null;

async function cleanup() {
  if (wrangler) await stopProcess(wrangler);
  if (logFd !== null) closeSync(logFd), (logFd = null);
  if (persistDir) rmSync(persistDir, { recursive: true, force: true }), (persistDir = null);
}
await runBench({
  main,
  cleanup,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/wrangler.log",
  onExit: () => wrangler && isRunning(wrangler) && signalTree(wrangler, "SIGKILL"),
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  persistDir = mkdtempSync(join(tmpdir(), "overhead-bench-"));
  // Runs from src/ (not frozen), as npm run dev does.
  const { base } = await startWorker({
    dir: persistDir,
    vars: { ADMIN_TOKEN },
    log: "wrangler.log",
    frozen: false,
    logLevel: LOG_LEVEL,
    track: ({ child, logFd: fd }) => ((wrangler = child), (logFd = fd)),
  });

  const agent = keepAliveAgent(CONCURRENCY);
  const healthzProbe = route("GET /healthz", "/healthz", () => ({}));

  // The healthz rate sizes the key pool (see the header comment).
  await healthzProbe.run(agent, base, WARMUP, CONCURRENCY, { record: false });
  const probe = await healthzProbe.run(agent, base, Math.min(REQUESTS, 1_000), CONCURRENCY, { record: false });
  const keysNeeded = keysFor(probe.count / probe.seconds);
  const keyCount = Math.min(MAX_KEYS, Math.max(CONCURRENCY * 2, keysNeeded));
  console.log(`[bench] /healthz runs ~${Math.round(probe.count / probe.seconds)} req/s here; creating ${keyCount} secret keys`);

  const pool = keyPool(await createKeys(adminClient(base, ADMIN_TOKEN), keyCount));
  const routes = () => [route("GET /healthz", "/healthz", () => ({})), route("GET /api/v1/account", "/api/v1/account", async () => ({ key: await pool.next() }))];

  console.log(`[bench] warm-up, then ${REQUESTS} requests per route in ${ROUNDS} alternating blocks, concurrency ${CONCURRENCY}`);
  const [warmHealthz, warmAccount] = routes();
  await warmAccount.run(agent, base, Math.max(WARMUP, keyCount), CONCURRENCY, { record: false });
  await warmHealthz.run(agent, base, WARMUP, CONCURRENCY, { record: false });
  pool.waits = 0;
  const loaded = await alternate(routes(), agent, base, REQUESTS, ROUNDS, CONCURRENCY);
  const loadedWaits = pool.waits;
  // Unloaded latency: one request at a time, so the figures are per-request cost rather than queueing behind 7 others.
  console.log(`[bench] then ${SERIAL_REQUESTS} requests per route one at a time`);
  const serial = SERIAL_REQUESTS > 0 ? await alternate(routes(), agent, base, SERIAL_REQUESTS, 2, 1) : null;
  agent.destroy();

  const [h, a] = loaded;
  const ratio = a.p50_ms / h.p50_ms;
  const all = [...loaded, ...(serial ?? [])];
  const failed = all.some((r) => r.non_200 > 0);
  console.log(`\nconcurrency ${CONCURRENCY}, ${h.requests} requests per route:`);
  printTable(loaded);
  console.log(
    `\naccount p50 / healthz p50 = ${ratio.toFixed(2)}x   (target <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "met" : "NOT met"})` +
      `   added p50 = +${(a.p50_ms - h.p50_ms).toFixed(2)} ms, p99 = +${(a.p99_ms - h.p99_ms).toFixed(2)} ms`,
  );
  if (serial) {
    console.log(`\nconcurrency 1, ${serial[0].requests} requests per route:`);
    printTable(serial);
    console.log(`\naccount p50 / healthz p50 = ${(serial[1].p50_ms / serial[0].p50_ms).toFixed(2)}x   added p50 = +${(serial[1].p50_ms - serial[0].p50_ms).toFixed(2)} ms`);
  }
  console.log(`\nkeys rotated: ${keyCount}; pacing waits while measuring: ${loadedWaits + pool.waits}; 429s: ${all.reduce((n, r) => n + (r.statuses["429"] ?? 0), 0)}`);
  if (failed) console.error("[bench] some requests were not answered 200: the figures above are not the success path");

  const results = {
    at: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version, wrangler: wranglerVersion() },
    config: { concurrency: CONCURRENCY, requests_per_route: h.requests, rounds: ROUNDS, warmup_per_route: WARMUP, keys: keyCount, wrangler_log_level: LOG_LEVEL },
    routes: loaded,
    ratio_p50: round2(ratio),
    added_p50_ms: round2(a.p50_ms - h.p50_ms),
    added_p99_ms: round2(a.p99_ms - h.p99_ms),
    target_ratio: TARGET_RATIO,
    target_met: ratio <= TARGET_RATIO,
    unloaded: serial && {
      concurrency: 1,
      routes: serial,
      ratio_p50: round2(serial[1].p50_ms / serial[0].p50_ms),
      added_p50_ms: round2(serial[1].p50_ms - serial[0].p50_ms),
    },
    pacing_waits: loadedWaits + pool.waits,
    valid: !failed,
  };
  writeFileSync(join(RESULTS_DIR, "overhead.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("[bench] wrote bench/results/overhead.json");
  if (failed) return 1;
  return process.env.BENCH_ENFORCE === "1" && !results.target_met ? 1 : 0;
}

/** An account (verified, free plan) with one member and `count` secret keys, created 8 at a time. */
async function createKeys(admin, count) {
  const account = (await admin.call("POST", "/accounts", { email: "bench@example.com", email_verified: true, plan: "free" })).data;
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench@example.com" })).data;
  const keys = [];
  let left = count;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) {
        const key = (await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id, scopes: ["account"] })).data;
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
