// @ts-check
// `npm run bench:consistency`: what a consistency call costs against its signals, on the local stack (wrangler dev
// with local D1, R2, Queues and Durable Objects; DNS and RDAP from loopback fixtures; nothing leaves the machine).
//
// Set-up (torn down at the end): a DoH fixture answering BENCH_DNS_MS (20) late for every name under
// samplewidgets.co.uk (null MX, so `POST /email` itself settles without a handshake and does the same DNS reads as
// the consistency call's email), an RDAP fixture, the Worker under `wrangler dev` (frozen bundle; BENCH_FROZEN=0 runs
// from src/) with the register, address and IP samples loaded as `npm run dev` loads them, one account with pack
// credits and a pool of keys (5 requests a second per key). Every request uses a fresh email domain, so DNS is asked.
//
// (a) A five-signal POST /api/v1/consistency against each signal looked up alone (POST /email, /phone, /ip, /address,
//     /entity), BENCH_REQUESTS (60) of each, one at a time, in BENCH_ROUNDS (3) interleaved blocks. Reported: p50 of
//     each and the ratio consistency / slowest single (target <= 1.3: the signals run concurrently).
// (b) A bulk run of BENCH_ROWS (5,000) signal sets (phone + IP + address, every second one with an entity), polled
//     until completed. Reported: rows per second.
//
// Writes bench/results/consistency.json (wrangler output: bench/results/consistency-wrangler.log). Exits 1 on an
// unexpected answer, or with BENCH_ENFORCE=1 when the ratio target is missed. Bounded by BENCH_TIMEOUT_MS (15 min).
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { startStandIns } from "./lib/stand-ins.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { loadAddressData } from "../scripts/import-address.mjs";
import { loadIpSamples } from "../scripts/import-ip.mjs";
import { loadSamples } from "../scripts/import-register.mjs";
import { keepAliveAgent, benchAccount, round2, send, stats } from "./lib/load.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const REQUESTS = size("BENCH_REQUESTS", 60, 4);
const ROUNDS = size("BENCH_ROUNDS", 3, 2);
const ROWS = size("BENCH_ROWS", 5_000, 40);
const DNS_MS = num("BENCH_DNS_MS", 20);
const TARGET_RATIO = 1.3;
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const DOMAIN = "samplewidgets.co.uk";

const held = resources();
let serial = 0;

const digits = (n) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, "0");
const ukMobile = () => `+447400${digits(6)}`;
const usIp = () => `6.${1 + (++serial % 250)}.${Math.floor(serial / 250) % 256}.${serial % 256}`;
const freshEmail = () => `jane@r${++serial}.${DOMAIN}`;
const LONDON = { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" };
const COMPANY = { identifier: "09900001", type: "company_number", country: "GB" };

/** Each measured route: its path and a fresh body. */
const ROUTES = {
  consistency: [
    "/api/v1/consistency",
    () => ({ email: freshEmail(), phone: ukMobile(), ip: usIp(), address: LONDON, entity: COMPANY }),
  ],
  email: ["/api/v1/email", () => ({ email: freshEmail() })],
  phone: ["/api/v1/phone", () => ({ phone: ukMobile() })],
  ip: ["/api/v1/ip", () => ({ ip: usIp() })],
  address: ["/api/v1/address", () => ({ address: LONDON })],
  entity: ["/api/v1/entity", () => COMPANY],
};

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const loadBefore = loadavg().map(round2);
  const { vars } = await startStandIns(held, {
    zone: (name) => (name === DOMAIN || name.endsWith(`.${DOMAIN}`) ? { MX: ["0 ."] } : undefined),
    dnsLatencyMs: DNS_MS,
    registeredOn: () => "2015-04-02",
  });
  const { base } = await startWorker({
    held,
    dir: held.tempDir("consistency-bench-"),
    vars: { ADMIN_TOKEN, ...vars },
    log: "consistency-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
  });
  const log = (line) => console.log(line);
  await loadSamples({ baseUrl: base, token: ADMIN_TOKEN, log });
  await loadAddressData({ baseUrl: base, token: ADMIN_TOKEN, log });
  await loadIpSamples({ baseUrl: base, token: ADMIN_TOKEN, log });
  const pool = await benchAccount(adminClient(base, ADMIN_TOKEN), 8);
  const agent = keepAliveAgent(2);
  const failures = [];

  // (a) interleaved blocks, one request at a time, after a warm-up of each route.
  const times = Object.fromEntries(Object.keys(ROUTES).map((name) => [name, []]));
  const once = async (name, record) => {
    const [path, body] = ROUTES[name];
    const res = await send(agent, `${base}${path}`, {
      method: "POST",
      key: await pool.next(),
      body: body(),
      read: true,
    });
    if (res.status !== 200) failures.push(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
    if (record) times[name].push(res.ms);
    return res;
  };
  for (const name of Object.keys(ROUTES)) for (let i = 0; i < 5; i++) await once(name, false);
  const sample = JSON.parse((await once("consistency", false)).text).data;
  console.log(
    `[bench] a five-signal answer: score ${sample.score} (${sample.level}), ${sample.agreements.length} agreements, ` +
      `${sample.disagreements.length} disagreements`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? Object.keys(ROUTES).reverse() : Object.keys(ROUTES);
    for (const name of order) for (let i = 0; i < Math.ceil(REQUESTS / ROUNDS); i++) await once(name, true);
  }
  const summary = Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, stats(ms)]));
  const singles = Object.keys(ROUTES).filter((name) => name !== "consistency");
  const slowest = singles.reduce((a, b) => (summary[a].p50_ms >= summary[b].p50_ms ? a : b));
  const ratio = round2(summary.consistency.p50_ms / summary[slowest].p50_ms);
  for (const name of Object.keys(ROUTES))
    console.log(`[bench] (a) ${name.padEnd(11)} p50 ${summary[name].p50_ms} ms  mean ${summary[name].mean_ms} ms`);
  console.log(
    `[bench] (a) five-signal consistency p50 / slowest single (${slowest}) p50 = ${ratio}x (target <= ${TARGET_RATIO})`,
  );

  // (b) one bulk run.
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    phone: ukMobile(),
    ip: usIp(),
    address: LONDON,
    ...(i % 2 ? { entity: COMPANY } : {}),
  }));
  const created = await send(agent, `${base}/api/v1/consistency/bulk`, {
    method: "POST",
    key: await pool.next(),
    body: { rows },
    read: true,
  });
  if (created.status !== 202) throw new Error(`bulk create answered ${created.status}: ${created.text.slice(0, 300)}`);
  const jobId = JSON.parse(created.text).data.job.id;
  const bulkStarted = performance.now();
  let job;
  do {
    await sleep(500);
    job = JSON.parse(
      (await send(agent, `${base}/api/v1/consistency/bulk/${jobId}`, { key: await pool.next(), read: true })).text,
    ).data.job;
  } while (["queued", "processing"].includes(job.status));
  const seconds = (performance.now() - bulkStarted) / 1000;
  const rowsPerSecond = Math.round(job.processed / seconds);
  if (job.status !== "completed" || job.processed !== ROWS)
    failures.push(`bulk ended ${job.status} with ${job.processed} of ${ROWS} rows`);
  const { consistent, mixed, inconsistent, undecided, credits_used } = job;
  console.log(
    `[bench] (b) bulk ${ROWS} rows in ${round2(seconds)} s: ${rowsPerSecond} rows/s ` +
      `(${JSON.stringify({ consistent, mixed, inconsistent, undecided, credits_used })})`,
  );

  const result = {
    machine: { cores: availableParallelism(), load_before: loadBefore, load_after: loadavg().map(round2) },
    dns_ms: DNS_MS,
    a: { summary, slowest_single: slowest, ratio, target: TARGET_RATIO },
    b: { rows: ROWS, seconds: round2(seconds), rows_per_second: rowsPerSecond, job },
    failures,
  };
  writeFileSync(join(RESULTS_DIR, "consistency.json"), `${JSON.stringify(result, null, 2)}\n`);
  for (const f of failures) console.error(`[bench] unexpected: ${f}`);
  const checked = checkRun({
    bench: "consistency",
    figures: {
      ...Object.fromEntries(Object.keys(ROUTES).map((name) => [`${name} p50 ms`, summary[name].p50_ms])),
      "bulk rows/s": rowsPerSecond,
      "bulk credits used": credits_used,
    },
    errored: failures.length,
  });
  if (checked) return 1;
  return process.env.BENCH_ENFORCE === "1" && ratio > TARGET_RATIO ? 1 : 0;
}

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 15 * 60_000),
  logHint: "wrangler output: bench/results/consistency-wrangler.log",
});
