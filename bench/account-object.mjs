// @ts-check
// `npm run bench:account-object`: what one account's Durable Object can take, measured locally.
//
// Every authenticated request makes one call to its account's object before its product work (a paid one makes a
// second, the settle, after it), so this object is the ceiling of one account's request rate. This bench calls the real
// class (durable-objects/account-object.ts) from a driver Worker (bench/lib/account-object-driver.ts) run by
// `wrangler dev` with a config of its own (one binding: the object, SQLite storage on local disk): no HTTP per call, no
// router, no D1, so the figure is the object's own on this machine. Cloudflare's replicated storage adds write latency
// to a paid request's calls, not CPU per call.
//
//   free   a request answered without a hold (test value, repeat): enterBalance, one call (rate windows + balance)
//   paid-hold  the same-run baseline: a paid lookup as the object saw it before it kept the lists (enterReserve,
//          then a bare settle)
//   paid   a fresh paid lookup: enterBegin (rate windows, repeat and suppression rows, cap, balance, hold, claim)
//          then settle (charge, ledger row, repeat marker, history row)
//
// Prints calls/s and requests/s per kind at BENCH_CONCURRENCY calls in flight, over BENCH_KEYS keys of one account
// (each limited to 5 a second, so a rate above 5 x keys shows as refused), and writes
// bench/results/account-object.json. Knobs: BENCH_CALLS, BENCH_CONCURRENCY, BENCH_KEYS, BENCH_ROUNDS, and
// X_LOCAL_OBSERVABILITY (wrangler's local tracing of every call; off here unless set to true). BENCH_PROFILE=n
// profiles n more paid requests with the inspector's sampling profiler (the driver and the object share one isolate
// under wrangler dev) and prints the heaviest functions; the profile is kept in bench/results/ for DevTools.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { connectProfiler, cpuPerRequest, topFunctions } from "./lib/cpu-profile.mjs";
import { runBench } from "./lib/harness.mjs";
import { sampleTree } from "./lib/proc.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { freePort, ROOT, requireNode22, waitForHttp } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const CALLS = size("BENCH_CALLS", 20_000, 300);
const CONCURRENCY = num("BENCH_CONCURRENCY", 16);
const KEYS = num("BENCH_KEYS", 10_000);
const ROUNDS = size("BENCH_ROUNDS", 3, 1);
const PROFILE = num("BENCH_PROFILE", 0);
const RESULTS_DIR = join(ROOT, "bench", "results");

const held = resources();
let wrangler = null;

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000),
});

async function main() {
  const dir = held.tempDir("account-object-bench-");
  const config = join(dir, "wrangler.toml");
  writeFileSync(
    config,
    `${[
      'name = "account-object-bench"',
      `main = "${join(ROOT, "bench/lib/account-object-driver.ts")}"`,
      'compatibility_date = "2026-11-01"',
      'compatibility_flags = ["nodejs_compat"]',
      "[[durable_objects.bindings]]",
      'name = "ACCOUNTS"',
      'class_name = "AccountObject"',
      "[[migrations]]",
      'tag = "v1"',
      'new_sqlite_classes = ["AccountObject"]',
      // The class reads D1 when an alarm records an unfinished request (never here) and once to move old-layout lists.
      "[[d1_databases]]",
      'binding = "DB"',
      'database_name = "bench"',
      'database_id = "00000000-0000-0000-0000-000000000000"',
    ].join("\n")}\n`,
  );
  const [port, inspectorPort] = [await freePort(), await freePort()];
  mkdirSync(RESULTS_DIR, { recursive: true });
  wrangler = held.process(
    spawn(
      join(ROOT, "node_modules/.bin/wrangler"),
      [
        "dev",
        "-c",
        config,
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
        "--persist-to",
        join(dir, "state"),
        "--log-level",
        "warn",
        "--show-interactive-dev-session=false",
        "--inspector-port",
        String(inspectorPort),
      ],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "ignore", "inherit"],
        // wrangler's local tracing (on by default) writes a trace of every call, the object's RPCs included, to a
        // store of its own in the same runtime: a cost per call that grows with the store and is no part of the object.
        env: { ...process.env, X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false" },
      },
    ),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/?kind=ping`, { child: wrangler, timeoutMs: 120_000 });
  const ask = async (query) => (await fetch(`${base}/?${new URLSearchParams(query)}`)).json();
  await ask({ kind: "setup" });
  console.log(
    `[bench] one account's object: ${CALLS} requests per round, ${CONCURRENCY} in flight, ${KEYS} keys, ${ROUNDS} ` +
      `rounds per kind`,
  );
  await ask({ kind: "free", calls: Math.min(2_000, CALLS), concurrency: CONCURRENCY, keys: KEYS }); // warm-up
  const rows = [];
  for (const kind of ["free", "paid-hold", "paid"]) {
    const rounds = [];
    // workerd's own CPU time (user + system, from /proc) per request: unlike requests/s, it does not fall when other
    // work on the machine takes the cores, so it compares two runs at different loads.
    const cpuBefore = workerdCpu();
    for (let r = 0; r < ROUNDS; r++)
      rounds.push(await ask({ kind, calls: CALLS, concurrency: CONCURRENCY, keys: KEYS }));
    const cpuMs = (workerdCpuSince(cpuBefore) * 1000) / (CALLS * ROUNDS);
    const best = rounds.reduce((a, b) => (a.seconds <= b.seconds ? a : b));
    const median = [...rounds].sort((a, b) => a.seconds - b.seconds)[Math.floor(rounds.length / 2)];
    rows.push({
      kind,
      requests_per_s: Math.round(median.calls / median.seconds),
      calls_per_s: Math.round(median.round_trips / median.seconds),
      best_requests_per_s: Math.round(best.calls / best.seconds),
      workerd_cpu_ms_per_request: Math.round(cpuMs * 1000) / 1000,
      refused: median.refused,
      errored: median.errored ?? 0,
      rounds: rounds.map((x) => x.seconds),
    });
  }
  console.log(
    "\nkind       requests/s   calls/s   (best requests/s)   workerd CPU ms/request   refused by the 5/s limit",
  );
  for (const r of rows)
    console.log(
      `${r.kind.padEnd(10)} ${String(r.requests_per_s).padStart(10)} ${String(r.calls_per_s).padStart(9)}   ` +
        `${`(${r.best_requests_per_s})`.padEnd(20)}${r.workerd_cpu_ms_per_request.toFixed(3).padStart(22)}   ` +
        `${r.refused}`,
    );
  const rate = (kind) => rows.find((r) => r.kind === kind).requests_per_s;
  console.log(`paid with its lists / paid-hold (same run): ${(rate("paid") / rate("paid-hold")).toFixed(2)}x`);
  const profiled = PROFILE > 0 ? await profilePaid(`127.0.0.1:${inspectorPort}`, ask) : null;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version },
    config: { calls: CALLS, concurrency: CONCURRENCY, keys: KEYS, rounds: ROUNDS },
    results: rows,
    profile: profiled,
  };
  writeFileSync(join(RESULTS_DIR, "account-object.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log("[bench] wrote bench/results/account-object.json");
  return checkRun({
    bench: "account-object",
    figures: Object.fromEntries(rows.map((r) => [`${r.kind} requests/s`, r.requests_per_s])),
    refused: rows.reduce((sum, r) => sum + r.refused, 0),
    errored: rows.reduce((sum, r) => sum + r.errored, 0),
  });
}

/** CPU seconds of each workerd process below our wrangler, by pid. */
function workerdCpu() {
  const { processes } = sampleTree(wrangler.pid);
  return new Map(processes.filter((p) => p.comm === "workerd").map((p) => [p.pid, p.cpuSeconds]));
}

/** CPU seconds the workerd processes used since `before` (a process started since counts from zero). */
function workerdCpuSince(before) {
  let seconds = 0;
  for (const [pid, cpu] of workerdCpu()) seconds += cpu - (before.get(pid) ?? 0);
  return seconds;
}

/** PROFILE paid requests under the inspector's sampling profiler: CPU per request and the heaviest functions. */
async function profilePaid(inspector, ask) {
  const profiler = await connectProfiler(inspector);
  try {
    const { profile } = await profiler.profile(() =>
      ask({ kind: "paid", calls: PROFILE, concurrency: CONCURRENCY, keys: KEYS }),
    );
    writeFileSync(join(RESULTS_DIR, "account-object-paid.cpuprofile"), JSON.stringify(profile));
    const figures = { ...cpuPerRequest(profile, PROFILE), top: topFunctions(profile, PROFILE, 20) };
    console.log(`\npaid: ${figures.cpu_ms} ms CPU a request (GC ${figures.gc_ms} ms), over ${PROFILE} requests`);
    for (const { frame, ms_per_request } of figures.top) console.log(`  ${ms_per_request.toFixed(3)} ms  ${frame}`);
    console.log("[bench] profile kept as bench/results/account-object-paid.cpuprofile");
    return figures;
  } finally {
    profiler.close();
  }
}
