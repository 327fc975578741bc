// @ts-check
// `npm run bench:entity`: what entity lookups and register imports cost, measured on the local stack.
//
// Set-up (everything local, torn down at the end): the Worker under `wrangler dev` on a free port with a throw-away
// --persist-to directory (migrated first), bundled once at the start (`wrangler deploy --dry-run`) and run with
// --no-bundle and config watching off, so files saved in the repository during the run do not restart it
// (BENCH_FROZEN=0: build from src/ like `npm run dev`). ADMIN_TOKEN comes in with --var. The shipped samples are loaded
// first through scripts/import-register.mjs's loadSamples(), as `npm run dev` would.
//
// (b) Import throughput: a GLEIF-format CSV of BENCH_ROWS rows (1,000,000) is generated into a temp file (the golden
//     copy's column names, addresses included, every 1,000th name with a quoted comma and quotes, every 1,000th address
//     with a line break, 1 in 10 LAPSED, 1 in 5 pointing at a UK company number), then `scripts/import-register.mjs
//     gleif-lei <file> --json` runs as its own Node process against the Worker, exactly as an operator would run it.
//     Reported: rows/s (wall time of the importer process, and its own figure), MB/s of CSV, peak RSS of the importer
//     (its own maxRSS, and /proc samples every 100 ms) and of workerd (the processes under our `wrangler dev`: sampled
//     sum, and each one's VmHWM at the end). The import must finish within BENCH_IMPORT_TIMEOUT_MS or the run fails.
// (a) A batch against a single lookup, in the same run, on the register (b) loaded (or, with BENCH_PARTS=a, on a
//     register of BENCH_ROUNDS x 600 generated rows): per round, one POST /api/v1/entity/batch of 500 LEIs nobody
//     looked up before (each found: 500 credits) and one POST /api/v1/entity of another fresh LEI (1 credit), order
//     flipped every round, one request at a time. Reported: batch wall time, single wall time (p50 over rounds, with
//     min and max) and the per-identifier ratio (batch / 500) / single (lower is better: below 1 means a batch is
//     cheaper per identifier than single calls).
//
// Writes bench/results/entity.json (wrangler output: bench/results/entity-wrangler.log). Exits 1 if a request was not
// answered as expected or a bound was hit. The whole run is bounded by BENCH_TIMEOUT_MS (25 min).
// Knobs: BENCH_PARTS (a,b), BENCH_ROWS, BENCH_ROUNDS (5), BENCH_IMPORT_TIMEOUT_MS (15 min), BENCH_FROZEN.
import { runBench } from "./lib/harness.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT, adminClient, requireNode22, signalTree } from "../scripts/lib/local.mjs";
import { keepAliveAgent, round2, send, stats } from "./lib/load.mjs";
import { checkRun, size } from "./lib/report.mjs";

requireNode22();

const { leiCheckDigits } = await import("../src/products/entity/identifiers.ts");
const { loadSamples } = await import("../scripts/import-register.mjs");

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const PARTS = new Set((process.env.BENCH_PARTS ?? "a,b").split(",").map((p) => p.trim()));
const ROWS = size("BENCH_ROWS", 1_000_000, 300);
const ROUNDS = size("BENCH_ROUNDS", 5, 1);
const BATCH_SIZE = size("BENCH_BATCH", 500, 20);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 25 * 60_000);
const IMPORT_TIMEOUT_MS = num("BENCH_IMPORT_TIMEOUT_MS", 15 * 60_000);
const FROZEN = process.env.BENCH_FROZEN !== "0";
const LOG_LEVEL = process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn";
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const IMPORTER = join(ROOT, "scripts", "import-register.mjs");
const VERSION = "2026-11-22";

/** The i-th generated LEI: base `BNCH00` + 12 digits, with its ISO 17442 check digits. */
const benchLei = (i) => {
  const base = `BNCH00${String(i).padStart(12, "0")}`;
  return `${base}${leiCheckDigits(base)}`;
};

const held = resources();
let wrangler = null;
let workDir = null;

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round2);
  workDir = held.tempDir("entity-bench-");
  const { base, child } = await startWorker({
    held,
    dir: workDir,
    vars: { ADMIN_TOKEN },
    log: "entity-wrangler.log",
    frozen: FROZEN,
    logLevel: LOG_LEVEL,
  });
  wrangler = child;
  const admin = adminClient(base, ADMIN_TOKEN);
  await loadSamples({ baseUrl: base, token: ADMIN_TOKEN, log: (line) => console.log(line) });
  const failures = [];

  let b = null;
  if (PARTS.has("b")) b = await importPart(base, ROWS, failures);
  else await importPart(base, ROUNDS * 600, failures, { quiet: true });
  const installed = (await admin.call("GET", "/registers")).data.registers.find((r) => r.name === "gleif-lei");
  const expectedRecords = PARTS.has("b") ? ROWS : ROUNDS * 600;
  if (installed?.version !== VERSION || installed?.records !== expectedRecords)
    failures.push(`gleif-lei installed as ${JSON.stringify(installed)}`);

  const a = PARTS.has("a") ? await lookupPart(base, admin, failures) : null;

  report(a, b);
  const results = {
    at: new Date().toISOString(),
    // Other processes on the machine skew every figure; the 1-, 5- and 15-minute load averages say whether any ran.
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      wrangler: wranglerVersion(),
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
    },
    config: {
      parts: [...PARTS],
      rows: PARTS.has("b") ? ROWS : null,
      rounds: ROUNDS,
      batch_size: BATCH_SIZE,
      frozen_bundle: FROZEN,
      wrangler_log_level: LOG_LEVEL,
    },
    a_batch_vs_single: a,
    b_import: b,
    failures,
    valid: failures.length === 0,
    seconds: Math.round((performance.now() - startedAt) / 1000),
  };
  writeFileSync(join(RESULTS_DIR, "entity.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\n[bench] wrote bench/results/entity.json (${results.seconds} s)`);
  const checked = checkRun({
    bench: "entity",
    figures: {
      ...(a ? { "(a) batch p50 ms": a.batch_ms.p50_ms, "(a) single p50 ms": a.single_ms.p50_ms } : {}),
      ...(b ? { "(b) import rows/s": b.rows_per_second } : {}),
    },
    errored: failures.length,
  });
  if (failures.length || checked) {
    console.error(`[bench] ${failures.length} unexpected answer(s):`);
    for (const f of failures.slice(0, 10)) console.error(`  ${f}`);
    return 1;
  }
  return 0;
}

// ── (b) ──────────────────────────────────────────────────────────────────────────────────────────────────────────
const GLEIF_HEADER = [
  "LEI",
  "Entity.LegalName",
  "Entity.LegalName.xmllang",
  "Entity.LegalAddress.FirstAddressLine",
  "Entity.LegalAddress.AdditionalAddressLine.1",
  "Entity.LegalAddress.City",
  "Entity.LegalAddress.Region",
  "Entity.LegalAddress.Country",
  "Entity.LegalAddress.PostalCode",
  "Entity.HeadquartersAddress.FirstAddressLine",
  "Entity.HeadquartersAddress.City",
  "Entity.HeadquartersAddress.Country",
  "Entity.HeadquartersAddress.PostalCode",
  "Entity.RegistrationAuthority.RegistrationAuthorityID",
  "Entity.RegistrationAuthority.OtherRegistrationAuthorityID",
  "Entity.RegistrationAuthority.RegistrationAuthorityEntityID",
  "Entity.LegalJurisdiction",
  "Entity.EntityCategory",
  "Entity.LegalForm.EntityLegalFormCode",
  "Entity.EntityStatus",
  "Entity.EntityCreationDate",
  "Registration.InitialRegistrationDate",
  "Registration.LastUpdateDate",
  "Registration.RegistrationStatus",
  "Registration.NextRenewalDate",
  "Registration.ManagingLOU",
  "Registration.ValidationSources",
];
const COUNTRIES = ["GB", "DE", "FR", "US", "NL", "IE", "LU", "IT", "ES", "JP"];
const quote = (value) => `"${String(value).replace(/"/g, '""')}"`;

function gleifLine(i) {
  const country = COUNTRIES[i % COUNTRIES.length];
  const uk = i % 5 === 0;
  const name = i % 1_000 === 7 ? `BENCH "QUOTED" ENTITY ${i}, S.A.` : `BENCH ENTITY ${i} LIMITED`;
  const street = i % 1_000 === 3 ? `UNIT ${i % 97}\nBENCH BUSINESS PARK` : `${i % 997} BENCH STREET`;
  const fields = [
    benchLei(i),
    name,
    "en",
    street,
    "",
    "BENCHTOWN",
    "",
    uk ? "GB" : country,
    `ZZ${i % 90} ${i % 9}ZZ`,
    street,
    "BENCHTOWN",
    uk ? "GB" : country,
    `ZZ${i % 90} ${i % 9}ZZ`,
    uk ? "RA000585" : "RA999999",
    "",
    uk ? String(90_000_000 + i) : "",
    uk ? "GB" : country,
    "GENERAL",
    "XXXX",
    "ACTIVE",
    "2016-01-04T00:00:00Z",
    "2016-02-01T09:00:00Z",
    "2026-10-01T08:30:00Z",
    i % 10 === 1 ? "LAPSED" : "ISSUED",
    "2027-02-01T09:00:00Z",
    "5493001KJTIIGC8Y1R12",
    "FULLY_CORROBORATED",
  ];
  return fields.map(quote).join(",");
}

/** Writes `rows` generated rows (LEIs 1..rows) with the golden copy's header, honouring back-pressure. */
async function writeGleifCsv(path, rows) {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const write = (text) =>
    out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once("drain", () => resolve(undefined)));
  await write(`${GLEIF_HEADER.map(quote).join(",")}\r\n`);
  for (let start = 1; start <= rows; start += 1_000) {
    const lines = [];
    for (let i = start; i < Math.min(start + 1_000, rows + 1); i++) lines.push(gleifLine(i));
    await write(`${lines.join("\r\n")}\r\n`);
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve(undefined))));
  return statSync(path).size;
}

async function importPart(base, rows, failures, { quiet = false } = {}) {
  const file = join(workDir, `${VERSION.replaceAll("-", "")}-0800-gleif-goldencopy-lei2-golden-copy.csv`);
  let t0 = performance.now();
  const bytes = await writeGleifCsv(file, rows);
  const generateSeconds = (performance.now() - t0) / 1000;
  if (!quiet)
    console.log(
      `[bench] (b) generated ${rows.toLocaleString("en")} GLEIF-format rows (${(bytes / 1e6).toFixed(0)} MB) in ` +
        `${generateSeconds.toFixed(1)} s`,
    );
  else console.log(`[bench] loading ${rows} generated LEIs for (a)`);

  t0 = performance.now();
  const importer = spawn(process.execPath, [IMPORTER, "gleif-lei", file, "--url", base, "--json"], {
    cwd: ROOT,
    env: { ...process.env, ADMIN_TOKEN },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  held.process(importer);
  let stdout = "";
  let stderr = "";
  importer.stdout.on("data", (chunk) => (stdout += chunk));
  importer.stderr.on("data", (chunk) => (stderr += chunk));
  const peaks = { importer: 0, workerd: 0 };
  const sampler = setInterval(() => {
    peaks.importer = Math.max(peaks.importer, rssOf(importer.pid));
    peaks.workerd = Math.max(
      peaks.workerd,
      workerdPids().reduce((sum, pid) => sum + rssOf(pid), 0),
    );
  }, 100);
  const timer = setTimeout(() => {
    failures.push(`(b) the import did not finish within ${IMPORT_TIMEOUT_MS / 1000} s`);
    signalTree(importer, "SIGKILL");
  }, IMPORT_TIMEOUT_MS);
  const code = await new Promise((resolve) => importer.once("exit", (c, signal) => resolve(c ?? signal)));
  clearTimeout(timer);
  clearInterval(sampler);
  await held.drop(importer);
  const wallSeconds = (performance.now() - t0) / 1000;
  rmSync(file, { force: true });
  if (code !== 0) {
    failures.push(`(b) importer exited ${code}: ${stderr.slice(-500)}`);
    return null;
  }
  const summary = JSON.parse(stdout.trim().split("\n").pop());
  if (summary.records !== rows) failures.push(`(b) importer reported ${summary.records} rows, expected ${rows}`);
  const workerdHwm = workerdPids().map((pid) => ({ pid, vm_hwm_mb: round2(statusKb(pid, "VmHWM") / 1024) }));
  return {
    rows,
    csv_bytes: bytes,
    generate_seconds: round2(generateSeconds),
    import_wall_seconds: round2(wallSeconds),
    rows_per_second: Math.round(rows / wallSeconds),
    mb_per_second: round2(bytes / 1e6 / wallSeconds),
    importer_reported: summary,
    importer_peak_rss_mb: round2(Math.max(summary.max_rss_bytes, peaks.importer) / 2 ** 20),
    importer_sampled_peak_rss_mb: round2(peaks.importer / 2 ** 20),
    workerd_sampled_peak_rss_mb: round2(peaks.workerd / 2 ** 20),
    workerd_vm_hwm: workerdHwm,
  };
}

// ── (a) ──────────────────────────────────────────────────────────────────────────────────────────────────────────
async function lookupPart(base, admin, failures) {
  const account = (
    await admin.call("POST", "/accounts", { email: "bench-entity@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, {
    bucket: "pack",
    amount: (ROUNDS + 1) * (BATCH_SIZE + 2),
    note: "bench:entity",
  });
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench-entity@example.com" }))
    .data;
  const key = (
    await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id, scopes: ["entity"] })
  ).data.key;
  const agent = keepAliveAgent(2);
  let next = 1; // generated LEIs are used once each: every lookup is fresh and billed
  const take = (n) => Array.from({ length: n }, () => benchLei(next++));
  const pace = () => new Promise((resolve) => setTimeout(resolve, 250)); // well under 5 requests per second per key

  const batch = async (note) => {
    const identifiers = take(BATCH_SIZE);
    const res = await send(agent, `${base}/api/v1/entity/batch`, {
      method: "POST",
      key,
      body: { identifiers },
      read: true,
      timeoutMs: 60_000,
    });
    const body = JSON.parse(res.text);
    const m = body.meta ?? {};
    if (res.status !== 200 || m.processed !== BATCH_SIZE || m.found !== BATCH_SIZE || m.credits_used !== BATCH_SIZE) {
      failures.push(`${note}: batch answered ${res.status} ${res.text.slice(0, 300)}`);
    }
    await pace();
    return res.ms;
  };
  const single = async (note) => {
    const identifier = take(1)[0];
    const res = await send(agent, `${base}/api/v1/entity`, { method: "POST", key, body: { identifier }, read: true });
    const body = JSON.parse(res.text);
    if (res.status !== 200 || body.data?.found !== true || body.meta?.credits_used !== 1)
      failures.push(`${note}: single answered ${res.status} ${res.text.slice(0, 300)}`);
    await pace();
    return res.ms;
  };

  console.log(
    `[bench] (a) warm-up (one batch, two singles), then ${ROUNDS} rounds of one ${BATCH_SIZE}-LEI batch and one ` +
      `single lookup`,
  );
  await batch("(a) warm-up");
  await single("(a) warm-up");
  await single("(a) warm-up");
  const batches = [];
  const singles = [];
  for (let r = 0; r < ROUNDS; r++) {
    const steps = [
      async () => batches.push(await batch(`(a) round ${r}`)),
      async () => singles.push(await single(`(a) round ${r}`)),
    ];
    for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
  }
  agent.destroy();
  const batchMs = stats(batches);
  const singleMs = stats(singles);
  return {
    batch_size: BATCH_SIZE,
    rounds: ROUNDS,
    register_rows: PARTS.has("b") ? ROWS : ROUNDS * 600,
    batch_ms: batchMs,
    single_ms: singleMs,
    batch_per_identifier_ms: round2(batchMs.p50_ms / BATCH_SIZE),
    per_identifier_ratio: Math.round((batchMs.p50_ms / BATCH_SIZE / singleMs.p50_ms) * 10_000) / 10_000,
    batch_vs_single_ratio: round2(batchMs.p50_ms / singleMs.p50_ms),
  };
}

// ── /proc ─────────────────────────────────────────────────────────────────────────────────────────────────────────
function statusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
const rssOf = (pid) => statusKb(pid, "VmRSS") * 1024;

/** workerd processes below our wrangler dev (found through the parent links in /proc). */
function workerdPids() {
  const root = wrangler?.pid;
  if (!root) return [];
  const parent = new Map();
  const comm = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const close = stat.lastIndexOf(")");
      comm.set(Number(name), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(name), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {}
  }
  const below = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...comm].filter(([pid, name]) => name.startsWith("workerd") && below(pid)).map(([pid]) => pid);
}

function report(a, b) {
  if (b) {
    console.log(
      `\n(b) import of ${b.rows.toLocaleString("en")} GLEIF rows (${(b.csv_bytes / 1e6).toFixed(0)} MB CSV) through ` +
        `the operator API:`,
    );
    console.log(
      `    ${b.import_wall_seconds} s wall = ${b.rows_per_second.toLocaleString("en")} rows/s (${b.mb_per_second} ` +
        `MB/s of CSV)`,
    );
    console.log(
      `    peak RSS: importer ${b.importer_peak_rss_mb} MB, workerd ${b.workerd_sampled_peak_rss_mb} MB (sampled ` +
        `sum; VmHWM ${b.workerd_vm_hwm.map((w) => `${w.vm_hwm_mb} MB`).join(", ")})`,
    );
  }
  if (a) {
    console.log(
      `\n(a) ${a.rounds} rounds on a register of ${a.register_rows.toLocaleString("en")} LEIs, every identifier ` +
        `fresh and billed:`,
    );
    console.log(
      `    batch of ${a.batch_size}: p50 ${a.batch_ms.p50_ms} ms (min ${a.batch_ms.min_ms}, max ${a.batch_ms.max_ms})`,
    );
    console.log(
      `    single lookup: p50 ${a.single_ms.p50_ms} ms (min ${a.single_ms.min_ms}, max ${a.single_ms.max_ms})`,
    );
    console.log(
      `    per identifier: batch ${a.batch_per_identifier_ms} ms vs single ${a.single_ms.p50_ms} ms -> ratio ` +
        `${a.per_identifier_ratio} (batch / single wall: ${a.batch_vs_single_ratio})`,
    );
  }
}

function wranglerVersion() {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler output: bench/results/entity-wrangler.log",
});
