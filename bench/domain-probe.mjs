// @ts-check
// `npm run bench:domain-probe`: how fast one SMTP sidecar instance checks a long list at ONE domain, through the
// Worker's own prober (src/platform/domain-probe.ts: calls of 50, 4 in flight, the sidecar keeping the domain's
// sessions), and what share of the addresses get a mailbox answer (target: every one the server answers for).
//
// Starts a real SMTP server (smtp-server behind bench/lib/fixtures.mjs's latency proxy: every reply delayed
// BENCH_SMTP_LATENCY_MS, 0 by default; local parts starting `ok-` exist, the rest are 550 5.1.1) and one sidecar
// process (workers/smtp-sidecar/server.mjs, as the Container runs it), bundles the prober with esbuild, and for each
// size in BENCH_SIZES (default 1000,10000) checks that many addresses at a fresh domain, a tenth of them real.
// Prints addresses/s, the share answered (and answered right), sidecar calls, SMTP sessions and the most open at
// once. Writes bench/results/domain-probe.json.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { runBench } from "./lib/harness.mjs";
import { checkRun, SMOKE } from "./lib/report.mjs";
import { startStandIns } from "./lib/stand-ins.mjs";
import { resources } from "./lib/resources.mjs";
import { round2 } from "./lib/load.mjs";
import { ROOT, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const SIZES = (process.env.BENCH_SIZES ?? (SMOKE ? "50" : "1000,10000")).split(",").map(Number);
const SMTP_LATENCY_MS = num("BENCH_SMTP_LATENCY_MS", 0);
const SECRET = `bench-domain-probe-${randomBytes(12).toString("hex")}`;
const RESULTS_DIR = join(ROOT, "bench", "results");
const TAG = randomBytes(3).toString("hex");
/** The outcomes that are the mail server's answer about the mailbox (not a failure to ask). */
const MAILBOX_ANSWERS = new Set(["accepted", "no_mailbox", "mailbox_full", "mailbox_disabled"]);

const held = resources();
const bundleDir = held.tempDir("bench-domain-probe-");
let smtp = null;

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000),
  logHint: "sidecar output: bench/results/domain-probe.log",
});

/** The Worker's prober as Node can import it (its imports have no extensions). */
async function loadProber() {
  const outfile = join(bundleDir, "domain-probe.mjs");
  await build({
    entryPoints: [join(ROOT, "src", "platform", "domain-probe.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile,
    logLevel: "error",
  });
  return import(pathToFileURL(outfile).href);
}

/** The most connections open at once, from the proxy's records. */
function peakOpen(connections) {
  const edges = connections.flatMap((c) => [
    [c.at, 1],
    [c.closedAt ?? Number.POSITIVE_INFINITY, -1],
  ]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (open += step));
  return peak;
}

async function run(probeDomain, base, size) {
  const domain = `bench-${TAG}-${size}.example`;
  const addresses = Array.from({ length: size }, (_, i) => `${i % 10 === 0 ? "ok" : "no"}-${i}@${domain}`);
  const before = smtp.connections.length;
  const started = performance.now();
  const result = await probeDomain({ url: base }, SECRET, {
    domain,
    mxHosts: [{ host: "127.0.0.1", preference: 10 }],
    addresses,
    timeoutMs: 10_000,
  });
  const seconds = (performance.now() - started) / 1000;
  // Sessions the sidecar keeps idle close 2 s later: wait for them before counting what was open at once.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const connections = smtp.connections.slice(before);
  const answered = result.results.filter((r) => MAILBOX_ANSWERS.has(r.outcome)).length;
  const right = result.results.filter((r, i) => r.outcome === (i % 10 === 0 ? "accepted" : "no_mailbox")).length;
  return {
    addresses: size,
    seconds: round2(seconds),
    addresses_per_second: round2(size / seconds),
    answered_share: round2((100 * answered) / size),
    answered_right_share: round2((100 * right) / size),
    sidecar_calls: result.calls,
    smtp_sessions: connections.length,
    peak_sessions_at_once: peakOpen(connections),
    rcpts: connections.reduce((n, c) => n + c.rcpts, 0),
  };
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { probeDomain } = await loadProber();
  const standIns = await startStandIns(held, {
    accepts: (local) => local.startsWith("ok-"),
    smtpLatencyMs: SMTP_LATENCY_MS,
    sidecar: { secret: SECRET, logFile: join(RESULTS_DIR, "domain-probe.log") },
  });
  smtp = standIns.smtp;
  await standIns.sidecar.ready();
  const { base } = standIns.sidecar;

  const runs = [];
  for (const size of SIZES) {
    const figures = await run(probeDomain, base, size);
    runs.push(figures);
    console.log(
      `${size} addresses at one domain: ${figures.seconds} s, ${figures.addresses_per_second} addresses/s, ` +
        `${figures.answered_share}% with a mailbox answer (${figures.answered_right_share}% right), ` +
        `${figures.sidecar_calls} sidecar calls, ${figures.smtp_sessions} SMTP sessions (at most ` +
        `${figures.peak_sessions_at_once} at once), ${figures.rcpts} RCPTs`,
    );
  }
  const results = { at: new Date().toISOString(), smtp_latency_ms: SMTP_LATENCY_MS, runs };
  writeFileSync(join(RESULTS_DIR, "domain-probe.json"), `${JSON.stringify(results, null, 2)}\n`);
  return checkRun({
    bench: "domain-probe",
    figures: Object.fromEntries(runs.map((r) => [`${r.addresses} addresses/s`, r.addresses_per_second])),
    // An address answered wrongly, or not at all, is a probe that failed.
    errored: runs.reduce((n, r) => n + Math.round((r.addresses * (100 - r.answered_right_share)) / 100), 0),
  });
}
