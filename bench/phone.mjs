// @ts-check
// `npm run bench:phone`: what phone lookups cost, measured on the local stack (wrangler dev with local D1, R2, Queues
// and Durable Objects; nothing leaves loopback).
//
// Set-up (torn down at the end): the Worker under `wrangler dev` on a free port with a throw-away --persist-to
// directory and a frozen bundle (BENCH_FROZEN=0: build from src/), the full phone prefix tables loaded through
// scripts/import-phone.mjs exactly as `npm run dev` loads them (its time is reported too), one account with pack
// credits and a pool of phone-scoped keys (the API allows 5 requests a second per key).
//
// Numbers: fresh valid numbers of eight countries (GB, DE, FR, US, IN, CN, AU, BR), generated from a seed and kept
// only when libphonenumber-js says they are valid, so every single lookup and batch item is a billed fresh answer.
//
// (a) Single lookup against the trivial routes, same run: GET /healthz (the floor: routing and loopback), GET
//     /api/v1/account (key lookup, rate limiter, credits snapshot) and POST /api/v1/phone, in alternating blocks
//     (BENCH_REQUESTS each, concurrency BENCH_CONCURRENCY). Reported: p50/p90/p99 and the p50 ratios phone/healthz and
//     phone/account.
// (b) A 1,000-number batch against 1,000 single lookups, same run, BENCH_ROUNDS rounds, order flipped every round:
//     one POST /api/v1/phone/batch of 1,000 fresh numbers, and 1,000 POST /api/v1/phone of other fresh numbers sent
//     with the same concurrency. Reported: wall time of each and the ratio batch / singles (lower is better).
// (c) Bulk runs of BENCH_SMALL_ROWS (10,000) and BENCH_ROWS (100,000) rows (70% valid numbers, 10% invalid, 5% test
//     numbers, 5% numbers on the disposable list, 10% duplicates), each polled until completed. Reported: rows/s
//     (target >= BENCH_TARGET_ROWS_PER_S, 2,000) and the peak RSS of workerd during each run: flat in job size means
//     the big run's peak is close to the small one's. Counters and credits are checked against the list.
//
// Writes bench/results/phone.json (wrangler output: bench/results/phone-wrangler.log). Exits 1 on an unexpected
// answer, or with BENCH_ENFORCE=1 when the rows/s target is missed. Bounded by BENCH_TIMEOUT_MS (20 min).
import { runBench } from "./lib/harness.mjs";
import { checkRun, size, SMOKE } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { isValidPhoneNumber } from "libphonenumber-js/max";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { importPhoneDatasets } from "../scripts/import-phone.mjs";
import { DEFAULT_OUT_DIR } from "../datasets/phone/build.mjs";
import { alternate, keepAliveAgent, keyPool, keysFor, printTable, round2, route, send } from "./lib/load.mjs";
import { treeSampler } from "./lib/proc.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const PARTS = new Set((process.env.BENCH_PARTS ?? "a,b,c").split(",").map((p) => p.trim()));
const REQUESTS = size("BENCH_REQUESTS", 1_000, 12);
const CONCURRENCY = num("BENCH_CONCURRENCY", 4);
const ROUNDS = size("BENCH_ROUNDS", 3, 1);
const BATCH = size("BENCH_BATCH", 1_000, 20);
const ROWS = size("BENCH_ROWS", 100_000, 60);
const SMALL_ROWS = size("BENCH_SMALL_ROWS", 10_000, 20);
const TARGET_ROWS_PER_S = num("BENCH_TARGET_ROWS_PER_S", 2_000);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 20 * 60_000);
const FROZEN = process.env.BENCH_FROZEN !== "0";
const LOG_LEVEL = process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn";
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const TEST_NUMBERS = [
  "+447700900000",
  "+447700900001",
  "+447700900002",
  "+447700900003",
  "+447700900004",
  "+447700900005",
];
/** Country code and the leading digits of ranges in use, completed with random digits to the length given. */
/** @type {[string, string, number][]} country code, leading digits, national length */
const RANGES = [
  ["+44", "74", 10],
  ["+44", "20", 10],
  ["+49", "151", 11],
  ["+33", "6", 9],
  ["+1", "212", 10],
  ["+91", "98", 10],
  ["+86", "138", 11],
  ["+61", "4", 9],
  ["+55", "1199", 11],
];

let seed = num("BENCH_SEED", 20261123) >>> 0;
/** mulberry32: 32-bit integer arithmetic throughout, so the sequence never collapses into a short cycle. */
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
}
const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");

const used = new Set();
/** A valid number nobody looked up in this run yet. */
function freshNumber() {
  for (let tries = 0; ; tries++) {
    if (tries > 10_000) throw new Error("no fresh valid number after 10,000 tries: check RANGES");
    const [code, lead, length] = RANGES[Math.floor(random() * RANGES.length)];
    const number = `${code}${lead}${digits(length - lead.length)}`;
    if (!used.has(number) && isValidPhoneNumber(number)) return (used.add(number), number);
  }
}

function disposableNumbers(n) {
  const rows = readFileSync(join(DEFAULT_OUT_DIR, "phone-disposable.tsv"), "utf8").split("\n").filter(Boolean);
  const picked = [];
  for (let i = 0; picked.length < n && i < rows.length; i += 7) {
    const [code, national] = rows[i].split("\t");
    const number = `+${code}${national}`;
    if (isValidPhoneNumber(number) && !used.has(number)) used.add(number), picked.push(number);
  }
  return picked;
}

/** A bulk list and what its job must count. */
function bulkList(rows) {
  const distinct = Math.round(rows * 0.9);
  const disposable = disposableNumbers(Math.round(rows * 0.05));
  const tests = Math.round(rows * 0.05);
  const invalid = Math.round(rows * 0.1);
  const list = [...disposable];
  for (let i = 0; i < tests; i++) list.push(TEST_NUMBERS[i % TEST_NUMBERS.length]);
  for (let i = 0; i < invalid; i++) list.push(`+4477009${digits(5)}`); // the drama range: possible, never valid
  while (list.length < distinct) list.push(freshNumber());
  while (list.length < rows) list.push(list[Math.floor(random() * distinct)]);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  const unique = new Set(list.filter((n) => !TEST_NUMBERS.includes(n)));
  const credits = [...unique].filter((n) => isValidPhoneNumber(n)).length;
  const valid = list.filter((n) => (TEST_NUMBERS.includes(n) ? n !== "+447700900005" : isValidPhoneNumber(n))).length;
  return { list, expected: { total: rows, valid, invalid: rows - valid, credits_used: credits } };
}

const held = resources();
let wrangler = null;

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/phone-wrangler.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round2);
  const { base, child } = await startWorker({
    held,
    dir: held.tempDir("phone-bench-"),
    vars: { ADMIN_TOKEN },
    log: "phone-wrangler.log",
    frozen: FROZEN,
    logLevel: LOG_LEVEL,
  });
  wrangler = child;
  const importStarted = performance.now();
  // At smoke size the committed sample (GB and CH) stands in for the full tables' 393,000 rows.
  const tables = await importPhoneDatasets({
    baseUrl: base,
    token: ADMIN_TOKEN,
    sample: SMOKE,
    log: (line) => console.log(line),
  });
  const importSeconds = round2((performance.now() - importStarted) / 1000);
  const rowsImported = tables.reduce((sum, t) => sum + t.records, 0);
  console.log(
    `[bench] prefix tables: ${rowsImported} rows in ${importSeconds} s (${Math.round(rowsImported / importSeconds)} ` +
      `rows/s)`,
  );

  const admin = adminClient(base, ADMIN_TOKEN);
  const credits = 3 * REQUESTS + ROUNDS * 2 * BATCH + ROWS + SMALL_ROWS + 10_000;
  const account = (
    await admin.call("POST", "/accounts", { email: "bench-phone@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: credits, note: "bench:phone" });
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench-phone@example.com" }))
    .data;
  const keyCount = keysFor(size("BENCH_KEY_RATE", 600, 10));
  const keys = [];
  for (let i = 0; i < keyCount; i++)
    keys.push(
      (
        await admin.call("POST", `/accounts/${account.id}/keys/secret`, {
          user_id: member.user_id,
          scopes: ["phone", "account"],
        })
      ).data.key,
    );
  const pool = keyPool(keys);
  const agent = keepAliveAgent(CONCURRENCY + 2);
  console.log(`[bench] account with ${credits} credits and ${keyCount} keys`);
  const failures = [];

  const a = PARTS.has("a") ? await singleVsTrivial(base, agent, pool, failures) : null;
  const b = PARTS.has("b") ? await batchVsSingles(base, agent, pool, failures) : null;
  const c = PARTS.has("c") ? await bulkRuns(base, agent, pool, failures) : null;

  const results = {
    at: new Date().toISOString(),
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
    },
    config: {
      parts: [...PARTS],
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      rows: ROWS,
      small_rows: SMALL_ROWS,
      frozen_bundle: FROZEN,
    },
    import: { rows: rowsImported, seconds: importSeconds, tables },
    a_single_vs_trivial: a,
    b_batch_vs_singles: b,
    c_bulk: c,
    failures,
    valid: failures.length === 0,
    seconds: Math.round((performance.now() - startedAt) / 1000),
  };
  writeFileSync(join(RESULTS_DIR, "phone.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n[bench] wrote bench/results/phone.json (${results.seconds} s)`);
  for (const f of failures.slice(0, 10)) console.error(`  ${f}`);
  return checkRun({
    bench: "phone",
    figures: {
      "import rows/s": Math.round(rowsImported / importSeconds),
      ...(a ? { "(a) phone / healthz p50": a.phone_vs_healthz_p50 } : {}),
      ...(b ? { "(b) batch p50 ms": b.batch_ms_p50, "(b) singles p50 ms": b.singles_ms_p50 } : {}),
      ...(c
        ? Object.fromEntries(c.runs.map((r, i) => [`(c) bulk ${i ? ROWS : SMALL_ROWS} rows/s`, r.rows_per_second]))
        : {}),
    },
    errored: failures.length,
  });
}

/** (a) */
async function singleVsTrivial(base, agent, pool, failures) {
  const phoneRoute = route("POST /api/v1/phone", "/api/v1/phone", async () => ({
    method: "POST",
    key: await pool.next(),
    body: { phone: freshNumber() },
  }));
  const trivial = [
    route("GET /healthz", "/healthz", () => ({})),
    route("GET /api/v1/account", "/api/v1/account", async () => ({ key: await pool.next() })),
    phoneRoute,
  ];
  for (const r of trivial) await r.run(agent, base, 50, CONCURRENCY, { record: false });
  const summaries = await alternate(trivial, agent, base, REQUESTS, ROUNDS * 2, CONCURRENCY);
  printTable(summaries);
  const [health, account_, phone] = summaries;
  for (const s of summaries)
    if (s.non_200) failures.push(`${s.route}: ${s.non_200} answers were not 200 (${JSON.stringify(s.statuses)})`);
  const a = {
    routes: summaries,
    phone_vs_healthz_p50: round2(phone.p50_ms / health.p50_ms),
    phone_vs_account_p50: round2(phone.p50_ms / account_.p50_ms),
  };
  console.log(
    `[bench] (a) POST /phone p50 = ${a.phone_vs_healthz_p50}x GET /healthz, ${a.phone_vs_account_p50}x GET ` +
      `/api/v1/account`,
  );
  return a;
}

/** (b) */
async function batchVsSingles(base, agent, pool, failures) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const batchRun = async () => {
      const started = performance.now();
      const res = await send(agent, `${base}/api/v1/phone/batch`, {
        method: "POST",
        key: await pool.next(),
        body: { phones: Array.from({ length: BATCH }, freshNumber) },
        read: true,
        timeoutMs: 120_000,
      });
      const body = JSON.parse(res.text);
      if (res.status !== 200 || body.meta.credits_used !== BATCH)
        failures.push(`batch: ${res.status} ${res.text.slice(0, 200)}`);
      return performance.now() - started;
    };
    const singlesRun = async () => {
      const singles = route("singles", "/api/v1/phone", async () => ({
        method: "POST",
        key: await pool.next(),
        body: { phone: freshNumber() },
      }));
      const { seconds } = await singles.run(agent, base, BATCH, CONCURRENCY);
      if (singles.summary().non_200) failures.push(`singles: ${JSON.stringify(singles.summary().statuses)}`);
      return seconds * 1000;
    };
    const [first, second] = round % 2 === 0 ? [batchRun, singlesRun] : [singlesRun, batchRun];
    const x = await first();
    const y = await second();
    rounds.push(
      round % 2 === 0 ? { batch_ms: round2(x), singles_ms: round2(y) } : { batch_ms: round2(y), singles_ms: round2(x) },
    );
  }
  const median = (values) => [...values].sort((p, q) => p - q)[Math.floor(values.length / 2)];
  const b = {
    rounds,
    batch_ms_p50: median(rounds.map((r) => r.batch_ms)),
    singles_ms_p50: median(rounds.map((r) => r.singles_ms)),
  };
  b.batch_vs_singles = round2(b.batch_ms_p50 / b.singles_ms_p50);
  console.log(
    `[bench] (b) ${BATCH}-number batch ${b.batch_ms_p50} ms vs ${BATCH} single lookups ${b.singles_ms_p50} ms ` +
      `(concurrency ` +
      `${CONCURRENCY}): ratio ${b.batch_vs_singles}`,
  );
  return b;
}

/** (c) */
async function bulkRuns(base, agent, pool, failures) {
  const c = [];
  for (const rows of [SMALL_ROWS, ROWS]) c.push(await bulkRun(base, agent, pool, rows, failures));
  const flat = round2(c[1].workerd_peak_rss_mb / c[0].workerd_peak_rss_mb);
  console.log(
    `[bench] (c) workerd peak RSS ${c[0].workerd_peak_rss_mb} MB at ${SMALL_ROWS} rows, ${c[1].workerd_peak_rss_mb} ` +
      `MB at ${ROWS} rows (x${flat})`,
  );
  if (c[1].rows_per_second < TARGET_ROWS_PER_S) {
    console.log(`[bench] below the ${TARGET_ROWS_PER_S} rows/s target`);
    if (process.env.BENCH_ENFORCE === "1") failures.push(`rows/s ${c[1].rows_per_second} < ${TARGET_ROWS_PER_S}`);
  }
  return { runs: c, peak_rss_ratio_big_to_small: flat, target_rows_per_second: TARGET_ROWS_PER_S };
}

/** One bulk run polled to the end: rows/s, peak workerd RSS while it ran, and its counters checked. */
async function bulkRun(base, agent, pool, rows, failures) {
  const { list, expected } = bulkList(rows);
  const sampler = treeSampler(wrangler.pid, 250);
  sampler.mark("start");
  const created = await send(agent, `${base}/api/v1/phone/bulk`, {
    method: "POST",
    key: await pool.next(),
    body: { phones: list },
    read: true,
    timeoutMs: 120_000,
  });
  if (created.status !== 202)
    throw new Error(`POST /api/v1/phone/bulk -> ${created.status} ${created.text.slice(0, 300)}`);
  const createdAt = created.t0 + created.ms;
  const id = JSON.parse(created.text).data.job.id;
  let job;
  for (;;) {
    await sleep(500);
    const res = await send(agent, `${base}/api/v1/phone/bulk/${id}`, { key: await pool.next(), read: true });
    job = JSON.parse(res.text).data.job;
    if (!["queued", "processing"].includes(job.status)) break;
  }
  const seconds = (performance.now() - createdAt) / 1000;
  sampler.mark("end");
  sampler.stop();
  const cpu = sampler.cpuBetween("start", "end");
  const counted = { total: job.total, valid: job.valid, invalid: job.invalid, credits_used: job.credits_used };
  if (job.status !== "completed" || job.processed !== rows || JSON.stringify(counted) !== JSON.stringify(expected)) {
    failures.push(`bulk ${rows}: ${JSON.stringify(job)} expected ${JSON.stringify(expected)}`);
  }
  const run = {
    rows,
    seconds: round2(seconds),
    rows_per_second: Math.round(rows / seconds),
    counters: {
      valid: job.valid,
      invalid: job.invalid,
      mobile: job.mobile,
      fixed_line: job.fixed_line,
      voip: job.voip,
      disposable: job.disposable,
    },
    workerd_peak_rss_mb: round2(sampler.peaks.workerd_rss_bytes / 2 ** 20),
    // Well below `seconds`: the run waited on something other than workerd's CPU (the disk, other processes).
    workerd_cpu_seconds: cpu?.workerd_cpu_seconds ?? null,
  };
  console.log(
    `[bench] (c) bulk ${rows} rows: ${run.seconds} s, ${run.rows_per_second} rows/s, workerd peak ` +
      `${run.workerd_peak_rss_mb} MB, workerd CPU ${run.workerd_cpu_seconds} s`,
  );
  return run;
}
