// @ts-check
// `npm run bench:sidecar`: probes per second one SMTP sidecar instance sustains (docs/architecture.md#scale-on-paper).
//
// Starts a real SMTP server (smtp-server, bench/lib/fixtures.mjs; every reply delayed BENCH_SMTP_LATENCY_MS, 0 by
// default) and one sidecar process (workers/smtp-sidecar/server.mjs, as the Container runs it), then sends signed
// POST /v1/probe requests, one address each at a domain nobody probed yet (so every probe is a full handshake with
// its catch-all check, as a fresh lookup's is), BENCH_CONCURRENCY in flight, for BENCH_PROBES probes. Prints
// probes/s, p50/p90 ms, and the instances a Kickbox-scale load (8,000 probes a minute) needs at that rate (one spare).
// Writes bench/results/sidecar.json.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { signedProbe, startStandIns } from "./lib/stand-ins.mjs";
import { resources } from "./lib/resources.mjs";
import { keepAliveAgent, percentile, round2, send } from "./lib/load.mjs";
import { ROOT, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const PROBES = size("BENCH_PROBES", 2_000, 60);
const CONCURRENCY = num("BENCH_CONCURRENCY", 32);
const SMTP_LATENCY_MS = num("BENCH_SMTP_LATENCY_MS", 0);
const KICKBOX_PER_MINUTE = 8_000;
const SECRET = `bench-sidecar-${randomBytes(12).toString("hex")}`;
const RESULTS_DIR = join(ROOT, "bench", "results");
const TAG = randomBytes(3).toString("hex");

const held = resources();

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000),
  logHint: "sidecar output: bench/results/sidecar.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Local parts with a "-" exist; the sidecar's random catch-all probe never has one, so no domain is catch-all.
  const { sidecar } = await startStandIns(held, {
    accepts: (local) => local.includes("-"),
    smtpLatencyMs: SMTP_LATENCY_MS,
    sidecar: { secret: SECRET, logFile: join(RESULTS_DIR, "sidecar.log") },
  });
  await sidecar.ready();
  const { base } = sidecar;
  const agent = keepAliveAgent(CONCURRENCY);
  let next = 0;
  const latencies = [];
  const failures = [];
  const worker = async () => {
    while (next < PROBES) {
      const i = next++;
      const domain = `bench-${TAG}-${i}.example`;
      const address = `user-${i}@${domain}`;
      const res = await send(agent, `${base}/v1/probe`, signedProbe(SECRET, { domain, addresses: [address] }));
      latencies.push(res.ms);
      const outcome = res.status === 200 ? JSON.parse(res.text).results?.[0]?.outcome : null;
      if (outcome !== "accepted") failures.push(`${address}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  const perSecond = round2(PROBES / seconds);
  const needed = Math.ceil(KICKBOX_PER_MINUTE / 60 / perSecond) + 1;
  const results = {
    at: new Date().toISOString(),
    probes: PROBES,
    concurrency: CONCURRENCY,
    smtp_latency_ms: SMTP_LATENCY_MS,
    probes_per_second: perSecond,
    p50_ms: round2(percentile(sorted, 50)),
    p90_ms: round2(percentile(sorted, 90)),
    kickbox_instances: needed,
    failures: failures.length,
  };
  console.log(
    `one sidecar instance: ${perSecond} probes/s (${PROBES} probes, ${CONCURRENCY} in flight, SMTP ` +
      `+${SMTP_LATENCY_MS} ms a reply), p50 ${results.p50_ms} ms, p90 ${results.p90_ms} ms`,
  );
  console.log(
    `Kickbox scale (${KICKBOX_PER_MINUTE} a minute = ${round2(KICKBOX_PER_MINUTE / 60)}/s): ${needed} instances (one ` +
      `spare)`,
  );
  for (const f of failures.slice(0, 10)) console.error(`  ${f}`);
  writeFileSync(join(RESULTS_DIR, "sidecar.json"), `${JSON.stringify(results, null, 2)}\n`);
  return checkRun({
    bench: "sidecar",
    figures: { "probes/s": perSecond, "p50 ms": results.p50_ms },
    errored: failures.length,
  });
}
