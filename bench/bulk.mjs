// @ts-check
// `npm run bench:bulk`: one 100,000-address bulk email run end to end on the local dev stack (wrangler dev with local
// D1, R2, Queues and Durable Objects), no network beyond loopback.
//
// Set-up (all torn down at the end, whatever happens): the DNS-over-HTTPS and RDAP fixtures of bench/lib/fixtures.mjs
// with no added latency (MX, SPF and a registration date for the disposable domains used below; NXDOMAIN for anything
// else), and the Worker under `wrangler dev` on a free port with a throw-away --persist-to directory and a frozen
// bundle (as bench/email.mjs; BENCH_FROZEN=0 builds from src/), with --var DOH_URL, RDAP_BASE_URL, ADMIN_TOKEN and an
// empty SMTP_SIDECAR_URL: nothing in this mix needs a mailbox handshake. One verified account with pack credits and
// one `email`-scoped secret key come from the operator API (/admin/v1).
//
// The list (deterministic, BENCH_SEED): BENCH_ROWS rows (100,000), shuffled, of
//   - test addresses with plus-tags (`deliverable+b17@service.test`, all six canned answers): free, no DNS
//   - disposable addresses at ten disposable domains (`ann.17@mailinator.com`, ...): one DNS round per domain, then
//     settled `risky`/`disposable` without a handshake, 1 credit each
//   - syntax-invalid strings (`double@@at-17.example`, `missing-domain-17@`, ...): free `invalid_syntax`
//   - addresses on the account's suppression list (seeded first with POST /api/v1/email/suppressions, 1,000 a call):
//     free `suppressed`
//   - ~10% duplicates of the above (exact repeats, or a case variant with the same normalized address)
// Every row's expected verdict and reason is known, so the CSV is checked row by row, and the job's counters against
// the expected totals (duplicate_count, deliverable/risky/undeliverable, credits_used).
//
// Measured: POST /api/v1/email/bulk (one call, ~3 MB body) latency; then GET /api/v1/email/bulk/{id} every
// BENCH_POLL_MS (500 ms: 2 requests/second on the key, under its 5/s) until `completed`; rows/s = total rows / (time
// from the create response to the poll that saw `completed`), also from the server's own created_at/finished_at;
// GET .../results download time and size, with every index 0..N-1 exactly once. Memory: RSS of the workerd processes
// below our wrangler process (summed), of the whole wrangler tree, and of this Node process, sampled every 500 ms from
// /proc (peaks); CPU seconds per process during the run. Progress is printed every few seconds.
//
// Also measured: how responsive the Worker stays during the run (poll latencies, and GET /healthz every BENCH_POLL_MS
// from a second, key-less client; BENCH_HEALTH_PROBE=0 skips it). Under wrangler dev the queue consumer, D1, R2 and the
// Durable Objects all run on one workerd thread, and a consumer step that only awaits in-process I/O never lets the
// event loop take new connections: requests wait until the consumer's invocation (up to 20 s) ends.
//
// Writes bench/results/bulk.json (wrangler output: bench/results/bulk-wrangler.log). Exits 1 if the run did not
// complete as expected (CSV or counters wrong, a failure, the time budget) or, with BENCH_ENFORCE=1, when the rows/s
// target is missed. The whole run is bounded by BENCH_TIMEOUT_MS (8 min): the poll stops early enough to still write
// partial figures, and a hard deadline kills everything.
// Knobs: BENCH_ROWS, BENCH_SEED, BENCH_POLL_MS, BENCH_TARGET_ROWS_PER_S, BENCH_TIMEOUT_MS, BENCH_FROZEN,
// BENCH_WRANGLER_LOG_LEVEL, BENCH_PACK_CREDITS, BENCH_HEALTH_PROBE, BENCH_ENFORCE.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { startStandIns } from "./lib/stand-ins.mjs";
import { keepAliveAgent, keyPool, round2, send, stats } from "./lib/load.mjs";
import { treeSampler } from "./lib/proc.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const ROWS = size("BENCH_ROWS", 100_000, 400);
const SEED = num("BENCH_SEED", 20261122);
const POLL_MS = num("BENCH_POLL_MS", 500);
const TARGET_ROWS_PER_S = num("BENCH_TARGET_ROWS_PER_S", 1_000);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 8 * 60_000);
const FROZEN = process.env.BENCH_FROZEN !== "0";
const LOG_LEVEL = process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn";
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const SUPPRESS_PER_CALL = 1_000; // the API's maximum per POST /email/suppressions
// Share of rows per kind; duplicates are on top of the distinct ones (10% of all rows).
const SHARES = { test: 0.32, disposable: 0.32, invalid: 0.13, suppressed: 0.13, duplicate: 0.1 };
/** Reserved at the end of the budget for the download, the checks, the report and the clean-up. */
const TAIL_MS = 60_000;

const DISPOSABLE_DOMAINS = [
  "mailinator.com",
  "10minutemail.com",
  "guerrillamail.com",
  "yopmail.com",
  "trashmail.com",
  "sharklasers.com",
  "maildrop.cc",
  "dispostable.com",
  "getnada.com",
  "temp-mail.org",
];
const SUPPRESSED_DOMAINS = ["example.org", "example.net", "customers.example"];
// The six canned answers (docs/test-addresses.md): verdict and reason.
const TEST_LOCALS = {
  deliverable: ["deliverable", ""],
  unverified: ["risky", "unverified"],
  "catch-all": ["risky", "catch_all"],
  disposable: ["risky", "disposable"],
  role: ["risky", "role"],
  undeliverable: ["undeliverable", "mailbox_not_found"],
};
const FIRST_NAMES = [
  "ann",
  "bob",
  "carla",
  "dev",
  "emil",
  "fatou",
  "greta",
  "hiro",
  "ines",
  "jon",
  "kemal",
  "lena",
  "mo",
  "nadia",
  "oskar",
  "priya",
];
// Strings parseAddress rejects (checked against src/products/email/{extract,syntax}.ts), each made unique by n.
const INVALID_SHAPES = [
  (n) => `no-at-sign-${n}.example.com`,
  (n) => `double@@at-${n}.example`,
  (n) => `two@ats@x${n}.example`,
  (n) => `@missing-local-${n}.example`,
  (n) => `missing-domain-${n}@`,
  (n) => `dot..dot-${n}@example.org`,
  (n) => `.lead-${n}@example.org`,
  (n) => `u${n}@nodot`,
  (n) => `u${n}@example..org`,
  (n) => `just text ${n}`,
];

const held = resources();
const startedAt = performance.now();
await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/bulk-wrangler.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const list = buildList(ROWS, SEED);
  const body = JSON.stringify({ emails: list.inputs });
  console.log(
    `[bench] list: ${ROWS} rows (${list.distinct} distinct, ${list.duplicates} duplicates): ${Object.entries(list.kinds)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}; body ${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB`,
  );

  const zone = (name) => {
    if (DISPOSABLE_DOMAINS.includes(name))
      return { MX: [`10 mx1.${name}.`, `20 mx2.${name}.`], TXT: ['"v=spf1 -all"'] };
    return undefined;
  };
  const standIns = await startStandIns(held, {
    zone,
    registeredOn: (name) => (DISPOSABLE_DOMAINS.includes(name) ? "2012-06-01" : undefined),
  });
  const { doh, rdap } = standIns;
  console.log(`[bench] fixtures: DoH ${doh.url} (no added latency), RDAP ${rdap.url}`);

  const vars = {
    ADMIN_TOKEN,
    ...standIns.vars,
    SMTP_SIDECAR_URL: "",
    SMTP_SIDECAR_SECRET: `bench-unused-${randomBytes(8).toString("hex")}`,
  };
  const { base, child } = await startWorker({
    held,
    dir: held.tempDir("bulk-bench-"),
    vars,
    log: "bulk-wrangler.log",
    frozen: FROZEN,
    logLevel: LOG_LEVEL,
  });
  const sampler = treeSampler(child.pid, 500);

  // ── account, key, credits, suppressions ───────────────────────────────────────────────────────────────────────
  const admin = adminClient(base, ADMIN_TOKEN);
  const packCredits = num("BENCH_PACK_CREDITS", list.expected.credits_used + 10_000);
  const account = (
    await admin.call("POST", "/accounts", { email: "bench-bulk@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, {
    bucket: "pack",
    amount: packCredits,
    note: "bench:bulk",
  });
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench-bulk@example.com" }))
    .data;
  const key = (
    await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id, scopes: ["email"] })
  ).data.key;
  const pool = keyPool([key]); // never a 5th request on the key within 1.1 s
  const agent = keepAliveAgent(4);
  const api = async (method, path, payload, options = {}) => {
    const res = await send(agent, `${base}${path}`, {
      method,
      key: await pool.next(),
      body: payload,
      read: true,
      timeoutMs: 120_000,
      ...options,
    });
    let parsed = null;
    try {
      parsed = JSON.parse(res.text);
    } catch {}
    return { ...res, body: parsed };
  };
  console.log(`[bench] account ${account.id}: ${packCredits} pack credits, one email-scoped secret key`);

  const seedStarted = performance.now();
  let added = 0;
  for (let i = 0; i < list.suppressed.length; i += SUPPRESS_PER_CALL) {
    const res = await api("POST", "/api/v1/email/suppressions", {
      emails: list.suppressed.slice(i, i + SUPPRESS_PER_CALL),
      reason: "bench",
    });
    if (res.status !== 201)
      throw new Error(`POST /api/v1/email/suppressions -> ${res.status} ${res.text.slice(0, 300)}`);
    added += res.body.data.added;
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  if (added !== list.suppressed.length)
    throw new Error(`suppression list: ${added} added, expected ${list.suppressed.length}`);
  console.log(
    `[bench] suppression list seeded with ${added} addresses in ` +
      `${Math.ceil(list.suppressed.length / SUPPRESS_PER_CALL)} calls (${seedSeconds.toFixed(1)} s)`,
  );

  // ── the run ───────────────────────────────────────────────────────────────────────────────────────────────────
  const failures = [];
  const logBefore = wranglerLogSize();
  sampler.mark("before_create");
  console.log(`[bench] POST /api/v1/email/bulk with ${ROWS} addresses`);
  const created = await api("POST", "/api/v1/email/bulk", body);
  const createdAt = created.t0 + created.ms; // the create response is in
  if (created.status !== 202 || !created.body?.data?.job?.id)
    throw new Error(`POST /api/v1/email/bulk -> ${created.status} ${created.text.slice(0, 500)}`);
  const jobId = created.body.data.job.id;
  sampler.mark("created");
  console.log(
    `[bench] job ${jobId} created in ${created.ms.toFixed(0)} ms (status ${created.body.data.job.status}); polling ` +
      `every ${POLL_MS} ms`,
  );

  const pollDeadline = startedAt + TIMEOUT_MS - TAIL_MS;
  const polls = [];
  let job = created.body.data.job;
  let completedAt = null;
  let lastPrint = performance.now();
  let firstRowAt = null;
  // A second, key-less client asks GET /healthz every POLL_MS during the run: how responsive the Worker stays while
  // its queue consumer works (the polls above share the isolate with the consumer in wrangler dev).
  const health = process.env.BENCH_HEALTH_PROBE === "0" ? { stop: async () => null } : healthProbe(base, POLL_MS);
  let lastPollStart = createdAt;
  for (let n = 1; ; n++) {
    // Every POLL_MS from the previous poll's start; a poll slower than that is followed at once, never by a burst.
    const wait = lastPollStart + POLL_MS - performance.now();
    if (wait > 0) await sleep(wait);
    lastPollStart = performance.now();
    if (performance.now() > pollDeadline) {
      failures.push(
        `the run did not complete within the time budget (${job.processed}/${job.total} rows, status ${job.status})`,
      );
      break;
    }
    const res = await api("GET", `/api/v1/email/bulk/${jobId}`);
    const at = res.t0 + res.ms;
    if (res.status !== 200) {
      failures.push(`poll ${n}: ${res.status} ${res.text.slice(0, 200)}`);
      if (failures.length > 5) break;
      continue;
    }
    job = res.body.data.job;
    polls.push({
      t_s: round2((at - createdAt) / 1000),
      ms: round2(res.ms),
      status: job.status,
      processed: job.processed,
    });
    if (firstRowAt === null && job.processed > 0) firstRowAt = at;
    if (performance.now() - lastPrint > 5_000) {
      lastPrint = performance.now();
      const s = (at - createdAt) / 1000;
      console.log(
        `[bench] ${s.toFixed(1)} s: ${job.status}, ${job.processed}/${job.total} rows ` +
          `(${Math.round(job.processed / s)} rows/s so far)`,
      );
    }
    if (!["queued", "processing"].includes(job.status)) {
      completedAt = at;
      if (job.status !== "completed" || job.stopped_reason)
        failures.push(`the run settled as ${job.status} (stopped_reason ${job.stopped_reason})`);
      break;
    }
  }
  sampler.mark("completed");
  const healthDuringRun = await health.stop();
  const runSeconds = ((completedAt ?? performance.now()) - createdAt) / 1000;
  const rowsPerSecond = (completedAt ? job.total : job.processed) / runSeconds;
  const serverSeconds = job.finished_at ? (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000 : null;
  console.log(
    completedAt
      ? `[bench] ${job.status} after ${runSeconds.toFixed(1)} s: ${Math.round(rowsPerSecond)} rows/s`
      : `[bench] gave up polling after ${runSeconds.toFixed(1)} s at ${job.processed} rows`,
  );

  // ── results ───────────────────────────────────────────────────────────────────────────────────────────────────
  let download = null;
  let csv = null;
  if (completedAt && job.processed > 0) {
    sampler.mark("before_download");
    const res = await api("GET", `/api/v1/email/bulk/${jobId}/results`, undefined, {
      timeoutMs: Math.max(10_000, pollDeadline + TAIL_MS - 20_000 - performance.now()),
    });
    sampler.mark("downloaded");
    const bytes = Buffer.byteLength(res.text);
    download = { status: res.status, ms: round2(res.ms), bytes, mb_per_s: round2(bytes / 1e6 / (res.ms / 1000)) };
    console.log(`[bench] results: ${res.status}, ${(bytes / 1e6).toFixed(2)} MB in ${res.ms.toFixed(0)} ms`);
    if (res.status !== 200) failures.push(`GET results -> ${res.status} ${res.text.slice(0, 200)}`);
    else csv = checkCsv(res.text, list, failures);
  }
  sampler.stop();
  checkJob(job, list, failures);
  const consumerErrors = countLogLines(logBefore, /job_message_failed/);
  if (consumerErrors)
    failures.push(
      `the queue consumer logged ${consumerErrors} job_message_failed line(s) (bench/results/bulk-wrangler.log)`,
    );

  const cpu = sampler.cpuBetween("created", "completed");
  const results = {
    at: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version, wrangler: wranglerVersion() },
    config: {
      rows: ROWS,
      seed: SEED,
      poll_ms: POLL_MS,
      frozen_bundle: FROZEN,
      wrangler_log_level: LOG_LEVEL,
      pack_credits: packCredits,
      dns_latency_ms: 0,
      smtp_sidecar: "none (SMTP_SIDECAR_URL empty)",
      account: account.id,
    },
    mix: {
      ...list.kinds,
      distinct: list.distinct,
      duplicates: list.duplicates,
      body_bytes: Buffer.byteLength(body),
      suppression_seed_seconds: round2(seedSeconds),
    },
    job_id: jobId,
    completed: completedAt !== null && job.status === "completed",
    rows_per_s: Math.round(rowsPerSecond),
    target_rows_per_s: TARGET_ROWS_PER_S,
    target_met: completedAt !== null && rowsPerSecond >= TARGET_ROWS_PER_S,
    run_seconds: round2(runSeconds),
    server_seconds: serverSeconds,
    server_rows_per_s: serverSeconds ? Math.round(job.total / serverSeconds) : null,
    first_row_after_s: firstRowAt === null ? null : round2((firstRowAt - createdAt) / 1000),
    create: { ms: round2(created.ms), status: created.status, body_bytes: Buffer.byteLength(body) },
    download,
    job: pick(job, [
      "status",
      "total",
      "processed",
      "duplicate_count",
      "deliverable",
      "risky",
      "undeliverable",
      "credits_used",
      "stopped_reason",
      "created_at",
      "finished_at",
    ]),
    expected: list.expected,
    csv,
    memory: {
      workerd_peak_rss_mb: mb(sampler.peaks.workerd_rss_bytes),
      workerd_processes: sampler.peaks.workerd_processes,
      wrangler_tree_peak_rss_mb: mb(sampler.peaks.tree_rss_bytes),
      harness_peak_rss_mb: mb(sampler.peaks.node_rss_bytes),
      harness_peak_heap_used_mb: mb(sampler.peaks.node_heap_used_bytes),
      samples: sampler.peaks.samples,
      sample_every_ms: 500,
    },
    cpu_during_run: cpu,
    fixtures: { doh_queries: doh.queries.length, rdap_requests: rdap.requests.length },
    progress: summariseProgress(polls, job.total),
    responsiveness: { poll_ms: polls.length ? stats(polls.map((p) => p.ms)) : null, healthz_ms: healthDuringRun },
    polls,
    failures,
    valid: failures.length === 0,
    seconds: Math.round((performance.now() - startedAt) / 1000),
  };
  report(results);
  writeFileSync(join(RESULTS_DIR, "bulk.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n[bench] wrote bench/results/bulk.json (${results.seconds} s)`);
  const checked = checkRun({
    bench: "bulk",
    figures: {
      "rows/s": results.rows_per_s,
      "credits used": results.job.credits_used,
      "create ms": results.create.ms,
      "download ms": results.download?.ms,
    },
    errored: failures.length,
  });
  if (failures.length || checked) {
    console.error(`[bench] ${failures.length} problem(s); the figures above are not a clean run:`);
    for (const f of failures.slice(0, 15)) console.error(`  ${f}`);
    return 1;
  }
  return process.env.BENCH_ENFORCE === "1" && !results.target_met ? 1 : 0;
}

/**
 * GET /healthz every `everyMs` (from the previous start; one at a time) until stop(), which resolves to latency stats.
 */
function healthProbe(base, everyMs) {
  const agent = keepAliveAgent(1);
  const latencies = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await send(agent, `${base}/healthz`, { timeoutMs: 120_000 });
        latencies.push(res.ms);
      } catch {
        latencies.push(performance.now() - started);
      }
      const wait = started + everyMs - performance.now();
      if (running && wait > 0) await sleep(wait);
    }
  })();
  return {
    async stop() {
      running = false;
      await Promise.race([loop, sleep(2_000)]);
      agent.destroy();
      return latencies.length ? { ...stats(latencies), over_1s: latencies.filter((ms) => ms > 1_000).length } : null;
    },
  };
}

// ── the list ──────────────────────────────────────────────────────────────────────────────────────────────────────

/** mulberry32: a small seeded PRNG, so every run submits the same list. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(items, random) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Mixed case with the same normalized address (domain and local part lower-cased by the Worker for these domains). */
function caseVariant(email, random) {
  const at = email.lastIndexOf("@");
  const flip = (s) => [...s].map((ch) => (random() < 0.5 ? ch.toUpperCase() : ch)).join("");
  const variant = `${flip(email.slice(0, at))}@${flip(email.slice(at + 1))}`;
  return variant === email ? email.toUpperCase() : variant;
}

/**
 * The submitted list and what every row must come back as. Each row: {input, kind, verdict, reason, key}; `key` is
 * the row's distinct-address identity (the Worker's dedupe key for these shapes), so duplicates share it.
 */
function buildList(total, seed) {
  const random = prng(seed);
  const counts = {
    test: Math.round(total * SHARES.test),
    disposable: Math.round(total * SHARES.disposable),
    invalid: Math.round(total * SHARES.invalid),
    suppressed: Math.round(total * SHARES.suppressed),
  };
  counts.duplicate = total - counts.test - counts.disposable - counts.invalid - counts.suppressed;
  const distinct = [];
  const testLocals = Object.keys(TEST_LOCALS);
  for (let n = 0; n < counts.test; n++) {
    const local = testLocals[n % testLocals.length];
    const [verdict, reason] = TEST_LOCALS[local];
    distinct.push({ input: `${local}+b${n}@service.test`, kind: "test", verdict, reason });
  }
  for (let n = 0; n < counts.disposable; n++) {
    const domain = DISPOSABLE_DOMAINS[n % DISPOSABLE_DOMAINS.length];
    distinct.push({
      input: `${FIRST_NAMES[n % FIRST_NAMES.length]}.${n}@${domain}`,
      kind: "disposable",
      verdict: "risky",
      reason: "disposable",
    });
  }
  for (let n = 0; n < counts.invalid; n++) {
    distinct.push({
      input: INVALID_SHAPES[n % INVALID_SHAPES.length](n),
      kind: "invalid",
      verdict: "undeliverable",
      reason: "invalid_syntax",
      exactOnly: true,
    });
  }
  const suppressed = [];
  for (let n = 0; n < counts.suppressed; n++) {
    const email = `former-customer.${n}@${SUPPRESSED_DOMAINS[n % SUPPRESSED_DOMAINS.length]}`;
    suppressed.push(email);
    distinct.push({ input: email, kind: "suppressed", verdict: "undeliverable", reason: "suppressed" });
  }
  distinct.forEach((row, i) => (row.key = i));
  const rows = [...distinct];
  for (let n = 0; n < counts.duplicate; n++) {
    const original = distinct[Math.floor(random() * distinct.length)];
    const input = original.exactOnly || random() < 0.5 ? original.input : caseVariant(original.input, random);
    rows.push({ ...original, input, duplicate: true });
  }
  shuffle(rows, random);
  // The CSV's input column is the first occurrence's input (the engine looks a distinct address up once).
  // The first occurrence of a distinct address is the one looked up; the rest count as duplicates.
  const expected = {
    total,
    duplicate_count: counts.duplicate,
    deliverable: 0,
    risky: 0,
    undeliverable: 0,
    credits_used: counts.disposable,
  };
  for (const row of rows) expected[row.verdict] += 1;
  const kinds = {
    test: counts.test,
    disposable: counts.disposable,
    invalid: counts.invalid,
    suppressed: counts.suppressed,
    duplicate: counts.duplicate,
  };
  return {
    inputs: rows.map((r) => r.input),
    rows,
    suppressed,
    distinct: distinct.length,
    duplicates: counts.duplicate,
    kinds,
    expected,
  };
}

// ── checks ────────────────────────────────────────────────────────────────────────────────────────────────────────

/** RFC 4180 rows (quoted cells may hold commas, quotes and newlines). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(cell), (cell = "");
    else if (ch === "\n") row.push(cell), rows.push(row), (row = []), (cell = "");
    else if (ch !== "\r") cell += ch;
  }
  if (cell !== "" || row.length) row.push(cell), rows.push(row);
  return rows;
}

/** Exactly one data row per submitted index, each with the verdict and reason its kind must get. */
function checkCsv(text, list, failures) {
  const [header, ...data] = parseCsv(text);
  const col = Object.fromEntries(header.map((name, i) => [name, i]));
  const seen = new Uint8Array(list.rows.length);
  const problems = {
    bad_index: 0,
    repeated_index: 0,
    wrong_verdict: 0,
    wrong_reason: 0,
    wrong_input: 0,
    wrong_suppressed_flag: 0,
  };
  let inputNotAsSubmitted = 0; // duplicates written with their first occurrence's spelling (by design, noted only)
  const samples = [];
  const byReason = {};
  let creditsInCsv = 0;
  let creditsFirst = 0;
  const firstSeen = new Set();
  for (const cells of data) {
    const index = Number(cells[col.index]);
    if (!Number.isInteger(index) || index < 0 || index >= list.rows.length) {
      problems.bad_index++;
      continue;
    }
    if (seen[index]++) problems.repeated_index++;
    const want = list.rows[index];
    const verdict = cells[col.deliverable];
    const reason = cells[col.reason];
    byReason[`${verdict}/${reason || "-"}`] = (byReason[`${verdict}/${reason || "-"}`] ?? 0) + 1;
    creditsInCsv += Number(cells[col.credits_used]) || 0;
    if (!firstSeen.has(want.key)) firstSeen.add(want.key), (creditsFirst += Number(cells[col.credits_used]) || 0);
    const input = cells[col.input].replace(/^'/, "");
    let bad = null;
    if (verdict !== want.verdict) problems.wrong_verdict++, (bad = "verdict");
    else if (reason !== want.reason) problems.wrong_reason++, (bad = "reason");
    else if (input !== want.input) problems.wrong_input++, (bad = "input");
    else if ((cells[col.suppressed] === "true") !== (want.kind === "suppressed"))
      problems.wrong_suppressed_flag++, (bad = "suppressed");
    if (input !== want.input) inputNotAsSubmitted++;
    if (bad && samples.length < 5)
      samples.push(
        `row ${index} (${want.kind} ${JSON.stringify(want.input)}): ${bad} wrong: ${cells.slice(1, 7).join(",")}`,
      );
  }
  const missing = seen.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
  const result = {
    header_ok: header.join(",").startsWith("index,input,email"),
    data_rows: data.length,
    distinct_indexes: list.rows.length - missing,
    missing_indexes: missing,
    ...problems,
    input_not_as_submitted: inputNotAsSubmitted,
    credits_in_csv: creditsInCsv,
    credits_in_csv_first_occurrences: creditsFirst,
    by_verdict_reason: byReason,
  };
  if (data.length !== list.rows.length) failures.push(`CSV has ${data.length} data rows, expected ${list.rows.length}`);
  if (missing) failures.push(`CSV misses ${missing} index(es)`);
  for (const [what, n] of Object.entries(problems))
    if (n) failures.push(`CSV: ${n} row(s) with ${what.replaceAll("_", " ")}`);
  for (const s of samples) failures.push(`  e.g. ${s}`);
  // Duplicate rows repeat their first occurrence's cells, credits_used included, so the column sums to more than was
  // charged; counted once per distinct address it must equal the job's credits_used.
  if (creditsFirst !== list.expected.credits_used)
    failures.push(
      `CSV credits_used over first occurrences sums to ${creditsFirst}, expected ${list.expected.credits_used}`,
    );
  return result;
}

function checkJob(job, list, failures) {
  for (const [field, want] of Object.entries(list.expected)) {
    if (job[field] !== want) failures.push(`job ${field} = ${job[field]}, expected ${want}`);
  }
  if (job.processed !== list.rows.length)
    failures.push(`job processed = ${job.processed}, expected ${list.rows.length}`);
}

// ── reporting ─────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Time to each 10% of the rows as the polls saw it, and the longest wait between two poll answers: under wrangler dev
 * the queue consumer and the polls share one workerd thread, and a consumer that never yields to the event loop holds
 * every request (polls and /healthz alike) until its invocation ends.
 */
function summariseProgress(polls, total) {
  const marks = [];
  let next = 0.1;
  for (const p of polls) {
    while (next <= 1.0001 && p.processed >= total * next)
      marks.push({ share: Math.round(next * 100), t_s: p.t_s }), (next += 0.1);
  }
  let longestGap = polls.length ? polls[0].t_s : 0;
  for (let i = 1; i < polls.length; i++) longestGap = Math.max(longestGap, polls[i].t_s - polls[i - 1].t_s);
  return { to_share_s: marks, polls_answered: polls.length, longest_gap_between_poll_answers_s: round2(longestGap) };
}

function report(r) {
  const line = (label, value) => console.log(`${label.padEnd(34)}${value}`);
  console.log(
    `\nbulk email run, ${r.config.rows} rows (${r.mix.distinct} distinct + ${r.mix.duplicates} duplicates), ` +
      `${r.machine.cpus} CPUs:`,
  );
  line(
    "create (POST /email/bulk)",
    `${r.create.ms.toFixed(0)} ms for a ${(r.create.body_bytes / 1e6).toFixed(2)} MB body`,
  );
  line(
    "run (create response -> completed)",
    `${r.run_seconds.toFixed(1)} s (server created_at -> finished_at: ${r.server_seconds ?? "-"} s); first rows ` +
      `after ${r.first_row_after_s ?? "-"} s`,
  );
  line(
    "throughput",
    `${r.rows_per_s} rows/s (server clock: ${r.server_rows_per_s ?? "-"} rows/s)   target >= ${r.target_rows_per_s}: ` +
      `${r.target_met ? "met" : "NOT met"}`,
  );
  if (r.download)
    line(
      "results download",
      `${r.download.status}, ${(r.download.bytes / 1e6).toFixed(2)} MB in ${r.download.ms.toFixed(0)} ms ` +
        `(${r.download.mb_per_s} MB/s)`,
    );
  if (r.csv)
    line(
      "CSV",
      `${r.csv.data_rows} data rows, ${r.csv.distinct_indexes} distinct indexes, ${r.csv.missing_indexes} missing; ` +
        `verdicts ${r.csv.wrong_verdict + r.csv.wrong_reason + r.csv.wrong_input} wrong`,
    );
  const j = r.job;
  line(
    "job counters",
    `deliverable ${j.deliverable}, risky ${j.risky}, undeliverable ${j.undeliverable}, duplicate_count ` +
      `${j.duplicate_count}, credits_used ${j.credits_used}`,
  );
  const e = r.expected;
  line(
    "expected",
    `deliverable ${e.deliverable}, risky ${e.risky}, undeliverable ${e.undeliverable}, duplicate_count ` +
      `${e.duplicate_count}, credits_used ${e.credits_used}`,
  );
  const m = r.memory;
  line(
    "peak RSS",
    `workerd ${m.workerd_peak_rss_mb} MB (${m.workerd_processes} processes, summed), wrangler tree ` +
      `${m.wrangler_tree_peak_rss_mb} MB, harness (Node) ${m.harness_peak_rss_mb} MB`,
  );
  if (r.cpu_during_run) {
    const c = r.cpu_during_run;
    const busiest = [...c.processes]
      .sort((a, b) => b.cpu_seconds - a.cpu_seconds)
      .slice(0, 4)
      .map((p) => `${p.comm}[${p.pid}] ${p.cpu_seconds}`)
      .join(", ");
    line(
      "CPU during the run",
      `workerd ${c.workerd_cpu_seconds} s, wrangler tree ${c.tree_cpu_seconds} s, harness ${c.harness_cpu_seconds} s ` +
        `over ${c.wall_seconds} s wall (${busiest})`,
    );
  }
  line("fixtures", `${r.fixtures.doh_queries} DNS queries, ${r.fixtures.rdap_requests} RDAP requests`);
  if (r.progress.to_share_s.length)
    line("progress (share: s)", r.progress.to_share_s.map((p) => `${p.share}%: ${p.t_s}`).join("  "));
  line(
    "polls answered",
    `${r.progress.polls_answered}; longest gap between two answers ${r.progress.longest_gap_between_poll_answers_s} ` +
      `s (asked every ${r.config.poll_ms} ms)`,
  );
  const rs = r.responsiveness;
  if (rs.poll_ms)
    line(
      "poll GET /email/bulk/{id} latency",
      `p50 ${rs.poll_ms.p50_ms} ms, max ${rs.poll_ms.max_ms} ms over ${rs.poll_ms.n} polls`,
    );
  if (rs.healthz_ms)
    line(
      "GET /healthz during the run",
      `p50 ${rs.healthz_ms.p50_ms} ms, max ${rs.healthz_ms.max_ms} ms, ${rs.healthz_ms.over_1s} of ` +
        `${rs.healthz_ms.n} over 1 s`,
    );
}

function mb(bytes) {
  return Math.round(bytes / 1e5) / 10;
}

function pick(obj, fields) {
  return Object.fromEntries(fields.map((f) => [f, obj?.[f] ?? null]));
}

function wranglerLogSize() {
  try {
    return statSync(join(RESULTS_DIR, "bulk-wrangler.log")).size;
  } catch {
    return 0;
  }
}

function countLogLines(fromByte, pattern) {
  try {
    const text = readFileSync(join(RESULTS_DIR, "bulk-wrangler.log"), "utf8").slice(fromByte);
    return text.split("\n").filter((l) => pattern.test(l)).length;
  } catch {
    return 0;
  }
}

function wranglerVersion() {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}
