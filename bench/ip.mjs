// `npm run bench:ip`: what IP lookups and IP dataset imports cost, measured on the local stack.
//
// Set-up: the Worker under `wrangler dev` on a free port with a throw-away database (bench/lib/stack.mjs), an account
// with plenty of credits and a pool of secret keys (5 requests a second each). The tables are the installed
// @ip-location-db copies (geo-whois-asn-country and asn, IPv4 and IPv6 editions):
//
// 1x   every 10th row of each file (about 106,000 rows), imported with scripts/import-ip.mjs's importIpDataset().
//      Measured, in alternating blocks so drift hits both alike: POST /api/v1/ip of a random public address, one
//      request at a time, against GET /healthz (the trivial route: routing and wrangler's local proxy only) -> p50 of
//      each and the ratio; then BENCH_BATCHES x POST /api/v1/ip/batch of 1,000 random addresses -> ms per batch and
//      per address.
// full the whole files (about 1,060,000 rows), imported by `scripts/import-register.mjs ip-<dataset> --package --json`
//      as its own Node process, exactly as an operator runs it -> rows/s (wall time) and peak RSS of the importer (its
//      own maxRSS) and of workerd (sampled). The old generation is swept as part of each import.
// 10x  the same lookups again on the full tables -> per-lookup time at 10x the rows / at 1x: an indexed range table
//      keeps it flat (1.0); a scan would grow it tenfold.
//
// Writes bench/results/ip.json (wrangler output: bench/results/ip-wrangler.log). Exits 1 if a request was not answered
// 200. Knobs: BENCH_SINGLES (300), BENCH_BATCHES (5), BENCH_TIMEOUT_MS (40 min), BENCH_FROZEN.
import { runBench } from "./lib/harness.mjs";
import { startWorker } from "./lib/stack.mjs";
import { sampleTree } from "./lib/proc.mjs";
import { closeSync, createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { ROOT, adminClient, requireNode22, startNodeScript, stopProcess } from "../scripts/lib/local.mjs";
import { keepAliveAgent, keyPool, round2, send, stats } from "./lib/load.mjs";

requireNode22();

const { importIpDataset } = await import("../scripts/import-ip.mjs");
const { packageFiles, packageDatasetVersion } = await import("../datasets/ip/build.mjs");

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const SINGLES = num("BENCH_SINGLES", 300);
const BATCHES = num("BENCH_BATCHES", 5);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 40 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const DATASETS = ["ip-country", "ip-asn"];
const KEYS = 12;

const children = { wrangler: null, importer: null };
const logFds = [];
let workDir = null;
const failures = [];

async function cleanup() {
  await Promise.all(Object.values(children).map((child) => child && stopProcess(child)));
  for (const fd of logFds.splice(0)) closeSync(fd);
  if (workDir) rmSync(workDir, { recursive: true, force: true }), (workDir = null);
}

/** A random address outside the obviously reserved blocks: 80% IPv4 in 1-223.x, 20% IPv6 in 2000::/4. */
function randomIp() {
  const r = (n) => Math.floor(Math.random() * n);
  if (Math.random() < 0.8) return `${1 + r(223)}.${r(256)}.${r(256)}.${r(256)}`;
  return `2${r(0x1000).toString(16).padStart(3, "0")}:${r(0x10000).toString(16)}:${r(0x10000).toString(16)}::${r(0x10000).toString(16)}`;
}

/** Every 10th line of the package files, into temp files: the 1x table. */
async function tenth(dataset) {
  const out = [];
  for (const file of packageFiles(dataset)) {
    const target = join(workDir, `${dataset}-${out.length}-tenth${file.includes("ipv6") ? "-ipv6" : "-ipv4"}.csv`);
    const writer = createWriteStream(target);
    let n = 0;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (n++ % 10 === 0) writer.write(`${line}\n`);
    writer.end();
    await once(writer, "finish");
    out.push(target);
  }
  return out;
}

async function lookups(label, base, agent, pool) {
  const single = [];
  const trivial = [];
  for (let round = 0; round < 10; round++) {
    const block = async (kind) => {
      for (let i = 0; i < SINGLES / 10; i++) {
        const res = kind === "ip" ? await send(agent, `${base}/api/v1/ip`, { method: "POST", key: await pool.next(), body: { ip: randomIp() } }) : await send(agent, `${base}/healthz`);
        if (res.status !== 200) failures.push(`${label}: ${kind} answered ${res.status}`);
        (kind === "ip" ? single : trivial).push(res.ms);
      }
    };
    for (const kind of round % 2 ? ["healthz", "ip"] : ["ip", "healthz"]) await block(kind);
  }
  const batch = [];
  for (let i = 0; i < BATCHES; i++) {
    const res = await send(agent, `${base}/api/v1/ip/batch`, { method: "POST", key: await pool.next(), body: { ips: Array.from({ length: 1_000 }, randomIp) } });
    if (res.status !== 200) failures.push(`${label}: batch answered ${res.status}`);
    batch.push(res.ms);
  }
  const s = stats(single);
  const t = stats(trivial);
  const b = stats(batch);
  console.log(`[bench] ${label}: single p50 ${s.p50_ms} ms vs /healthz ${t.p50_ms} ms (x${round2(s.p50_ms / t.p50_ms)}); 1,000-IP batch p50 ${b.p50_ms} ms (${round2(b.p50_ms / 1000)} ms an address)`);
  return { single: s, healthz: t, single_over_healthz: round2(s.p50_ms / t.p50_ms), batch_1000: b, batch_ms_per_address: round2(b.p50_ms / 1000) };
}

/** One dataset's full package import by the operator's command, with the importer's and workerd's peak memory. */
async function fullImport(base, dataset) {
  const peak = { workerd: 0 };
  const sampler = setInterval(() => (peak.workerd = Math.max(peak.workerd, sampleTree(children.wrangler.pid).workerdRssBytes)), 250);
  const t0 = performance.now();
  const importer = startNodeScript(join(ROOT, "scripts", "import-register.mjs"), { args: [dataset, "--package", "--json", "--url", base], env: { ADMIN_TOKEN }, stdio: "pipe" });
  children.importer = importer;
  let stdout = "";
  importer.stdout.on("data", (chunk) => (stdout += chunk));
  const [code] = await once(importer, "exit");
  clearInterval(sampler);
  children.importer = null;
  if (code !== 0) throw new Error(`importer of ${dataset} exited ${code}`);
  const summary = JSON.parse(stdout.trim().split("\n").pop());
  const seconds = (performance.now() - t0) / 1000;
  console.log(`[bench] full ${dataset}: ${summary.records} rows in ${round2(seconds)} s (${Math.round(summary.records / seconds)} rows/s), importer peak RSS ${round2(summary.max_rss_bytes / 2 ** 20)} MB, workerd ${round2(peak.workerd / 2 ** 20)} MB`);
  return { dataset, rows: summary.records, seconds: round2(seconds), rows_per_second: Math.round(summary.records / seconds), importer_peak_rss_mb: round2(summary.max_rss_bytes / 2 ** 20), workerd_sampled_peak_rss_mb: round2(peak.workerd / 2 ** 20) };
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  workDir = mkdtempSync(join(tmpdir(), "bench-ip-"));
  const { base } = await startWorker({
    dir: workDir,
    vars: { ADMIN_TOKEN },
    log: "ip-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
    track: ({ child, logFd }) => ((children.wrangler = child), logFds.push(logFd)),
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const account = (await admin.call("POST", "/accounts", { email: `bench-ip-${Date.now()}@example.com`, email_verified: true, plan: "enterprise" })).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: 1_000_000 });
  const user = (await admin.call("POST", `/accounts/${account.id}/members`, { email: `bench-ip-user-${Date.now()}@example.com` })).data.user_id;
  const keys = [];
  for (let i = 0; i < KEYS; i++) keys.push((await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: user })).data.key);
  const pool = keyPool(keys);
  const agent = keepAliveAgent(4);

  const oneX = { rows: 0 };
  for (const dataset of DATASETS) {
    const summary = await importIpDataset({ dataset, files: await tenth(dataset), version: `${packageDatasetVersion(dataset)}-tenth`, baseUrl: base, token: ADMIN_TOKEN, log: () => {} });
    oneX.rows += summary.records;
  }
  console.log(`[bench] 1x tables: ${oneX.rows} rows`);
  const at1x = await lookups("1x", base, agent, pool);
  const imports = [];
  for (const dataset of DATASETS) imports.push(await fullImport(base, dataset));
  const fullRows = imports.reduce((s, i) => s + i.rows, 0);
  const at10x = await lookups(`10x (${fullRows} rows)`, base, agent, pool);
  // The machine is shared: /healthz measured in the same blocks says how much of a change is the machine's.
  const growth = {
    single: round2(at10x.single.p50_ms / at1x.single.p50_ms),
    batch: round2(at10x.batch_1000.p50_ms / at1x.batch_1000.p50_ms),
    healthz: round2(at10x.healthz.p50_ms / at1x.healthz.p50_ms),
    single_over_healthz: round2(at10x.single_over_healthz / at1x.single_over_healthz),
  };
  console.log(`[bench] per-lookup time at ${round2(fullRows / oneX.rows)}x the rows: single x${growth.single} (x${growth.single_over_healthz} against /healthz, which moved x${growth.healthz}), batch x${growth.batch} (1.0 is flat; a scan would be x10)`);
  const importRows = imports.reduce((s, i) => s + i.rows, 0);
  const importSeconds = imports.reduce((s, i) => s + i.seconds, 0);
  const result = {
    at: new Date().toISOString(),
    tables: { "1x_rows": oneX.rows, full_rows: fullRows },
    lookups_1x: at1x,
    lookups_full: at10x,
    growth_full_over_1x: growth,
    import: { datasets: imports, rows: importRows, seconds: round2(importSeconds), rows_per_second: Math.round(importRows / importSeconds) },
    failures,
  };
  writeFileSync(join(RESULTS_DIR, "ip.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`[bench] full import: ${importRows} rows at ${result.import.rows_per_second} rows/s; written to bench/results/ip.json`);
  for (const failure of failures) console.error(`[bench] ${failure}`);
  return failures.length ? 1 : 0;
}

await runBench({ main, cleanup, timeoutMs: TIMEOUT_MS, logHint: "wrangler output: bench/results/ip-wrangler.log" });
