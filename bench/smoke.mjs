// @ts-check
// `npm run bench:smoke`: every bench at a tiny size, one after the other, so a bench that no longer runs, measures
// refusals or errors, or prints a missing or zero figure fails the build (CI runs it) instead of printing a figure.
//
// Each bench runs with BENCH_SMOKE=1 (its size knobs fall to their smoke sizes, bench/lib/report.mjs `size`) and must
// exit 0 having printed its check line (`[bench:check] <name> ok`, from checkRun: the commit, the load average, its
// figures all above zero, nothing refused or errored). `npm run bench:smoke -- email ip` runs only those. Prints one
// line per bench with its wall time, and the benches that failed with the end of their output.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { CHECK_MARK, commitAndLoad } from "./lib/report.mjs";
import { ROOT, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

/**
 * Every bench, with what its smoke run needs beyond BENCH_SMOKE=1. scripts/bench-smoke.test.mjs checks that every
 * file of bench/ is here, so a new bench is smoke-tested from the day it lands.
 * @type {Record<string, Record<string, string>>}
 */
export const BENCHES = {
  "account-object": {},
  address: {},
  autocomplete: {},
  bulk: {},
  capacity: {},
  consistency: {},
  "dashboard-tti": {},
  "dashboard-weight": {},
  "dataset-refresh": {},
  "domain-probe": {},
  email: {},
  entity: {},
  "hot-path": {},
  "ip-coverage": {},
  ip: {},
  mail: {},
  mcp: {},
  "mx-pacing": {},
  overhead: {},
  partners: {},
  phone: {},
  policy: {},
  sidecar: {},
  "walk-waits": {},
};

/** A bench that runs longer than this at smoke size is stuck (the slowest take about a minute on a busy machine). */
const PER_BENCH_TIMEOUT_MS = Number(process.env.BENCH_SMOKE_TIMEOUT_MS ?? 6 * 60_000);

/** Runs one bench at smoke size; resolves its exit code, whether it printed its check line, its time and output. */
function runOne(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ROOT, "bench", `${name}.mjs`)], {
      cwd: ROOT,
      env: { ...process.env, ...BENCHES[name], BENCH_SMOKE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // The bench's own harness stops its children on SIGTERM; its deadline is its own, this one is the runner's.
    const timer = setTimeout(() => child.kill("SIGTERM"), PER_BENCH_TIMEOUT_MS);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      const checked = output.includes(`${CHECK_MARK} ${name} ok`);
      resolve({ name, code: code ?? (signal ? 128 : 1), signal, checked, seconds, output });
    });
  });
}

async function main() {
  const asked = process.argv.slice(2);
  for (const name of asked) if (!(name in BENCHES)) throw new Error(`no bench named ${name}`);
  const names = asked.length ? asked : Object.keys(BENCHES);
  console.log(`[smoke] ${names.length} benches at smoke size; ${commitAndLoad()}`);
  const started = performance.now();
  const results = [];
  for (const name of names) {
    const result = await runOne(name);
    results.push(result);
    const verdict = result.code === 0 && result.checked ? "ok" : "FAILED";
    const why =
      result.code !== 0 ? ` (exit ${result.signal ?? result.code})` : result.checked ? "" : " (no check line)";
    console.log(`[smoke] ${name.padEnd(18)} ${verdict.padEnd(6)} ${String(result.seconds).padStart(6)} s${why}`);
  }
  const failed = results.filter((r) => r.code !== 0 || !r.checked);
  for (const r of failed) {
    console.log(`\n[smoke] ---- ${r.name}: the end of its output ----`);
    console.log(r.output.split("\n").slice(-40).join("\n"));
  }
  const total = Math.round((performance.now() - started) / 1000);
  console.log(
    `\n[smoke] ${results.length - failed.length} of ${results.length} benches passed in ${total} s; ${commitAndLoad()}`,
  );
  return failed.length ? 1 : 0;
}

if (process.argv[1] === join(ROOT, "bench", "smoke.mjs")) process.exitCode = await main();
