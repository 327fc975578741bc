// @ts-check
// `npm run bench:ip`: what IP lookups and IP dataset imports cost, measured on the local stack.
//
// Set-up: two Workers under `wrangler dev`, each on a free port with its own throw-away database (bench/lib/stack.mjs),
// each with an account of plenty of credits and a pool of secret keys (5 requests a second each). The tables are the
// installed @ip-location-db copies (geo-whois-asn-country and asn, IPv4 and IPv6 editions):
//
// 1x   stack one: every 10th row of each file (about 106,000 rows), imported with importIpDataset().
// 10x  stack two: the whole files (about 1,066,000 rows), imported by `scripts/import-register.mjs ip-<dataset>
//      --package --json` as its own Node process, exactly as an operator runs it -> rows/s (wall time) and peak RSS of
//      the importer (its own maxRSS) and of workerd (sampled). The replaced generation is swept as part of each import.
//
// Then, against both stacks in alternating blocks (the machine is shared: a busy neighbour slows both alike), one
// request at a time: POST /api/v1/ip of a random public address, GET /healthz (the trivial route: routing and
// wrangler's local proxy only), and POST /api/v1/ip/batch of 1,000 random addresses -> p50 of each, single / healthz,
// ms per address of a batch, and 10x / 1x: an indexed range table keeps it near 1.0; a scan would make it x10.
//
// Writes bench/results/ip.json (wrangler output: bench/results/ip-wrangler.log, ip-wrangler-1x.log). Exits 1 if a
// request was not answered
// 200. Knobs: BENCH_SINGLES (300), BENCH_BATCHES (5), BENCH_TIMEOUT_MS (40 min), BENCH_FROZEN.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size, SMOKE } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { sampleTree } from "./lib/proc.mjs";
import { createReadStream, createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { ROOT, adminClient, requireNode22, startNodeScript } from "../scripts/lib/local.mjs";
import { keepAliveAgent, keyPool, round2, send, stats } from "./lib/load.mjs";

requireNode22();

const { importIpDataset } = await import("../scripts/import-ip.mjs");
const { packageFiles, packageDatasetVersion } = await import("../datasets/ip/build.mjs");

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const SINGLES = size("BENCH_SINGLES", 300, 20);
const BATCHES = size("BENCH_BATCHES", 5, 1);
/** Addresses in a batch request. */
const BATCH_SIZE = size("BENCH_BATCH_SIZE", 1_000, 20);
/** At smoke size the "full" stack takes every 100th line of the package files and the 1x one every 1,000th. */
const FULL_STEP = SMOKE ? 100 : 1;
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 40 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const DATASETS = ["ip-country", "ip-asn"];
const KEYS = size("BENCH_KEYS", 12, 4);

const held = resources();
let workDir = null;
const failures = [];

/** A random address outside the obviously reserved blocks: 80% IPv4 in 1-223.x, 20% IPv6 in 2000::/4. */
function randomIp() {
  const r = (n) => Math.floor(Math.random() * n);
  if (Math.random() < 0.8) return `${1 + r(223)}.${r(256)}.${r(256)}.${r(256)}`;
  const hex = (n) => r(n).toString(16);
  return `2${hex(0x1000).padStart(3, "0")}:${hex(0x10000)}:${hex(0x10000)}::${hex(0x10000)}`;
}

/** Every `step`th line of the package files, into temp files: every 10th is the 1x table. */
async function tenth(dataset, step = 10 * FULL_STEP) {
  const out = [];
  for (const file of packageFiles(dataset)) {
    const name = `${dataset}-${out.length}-every-${step}${file.includes("ipv6") ? "-ipv6" : "-ipv4"}.csv`;
    const target = join(workDir, name);
    const writer = createWriteStream(target);
    let n = 0;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity }))
      if (n++ % step === 0) writer.write(`${line}\n`);
    writer.end();
    await once(writer, "finish");
    out.push(target);
  }
  return out;
}

/**
 * The same requests against both stacks in alternating blocks (A B, B A, ...), so a busy neighbour on the shared
 * machine slows both alike: single lookups, /healthz, and 1,000-address batches.
 */
async function lookups(stacks, agent) {
  const times = stacks.map(() => ({ ip: [], healthz: [], batch: [] }));
  const request = async (stack, kind) => {
    const res =
      kind === "ip"
        ? await send(agent, `${stack.base}/api/v1/ip`, {
            method: "POST",
            key: await stack.pool.next(),
            body: { ip: randomIp() },
          })
        : kind === "batch"
          ? await send(agent, `${stack.base}/api/v1/ip/batch`, {
              method: "POST",
              key: await stack.pool.next(),
              body: { ips: Array.from({ length: BATCH_SIZE }, randomIp) },
            })
          : await send(agent, `${stack.base}/healthz`);
    if (res.status !== 200) failures.push(`${stack.label}: ${kind} answered ${res.status}`);
    return res.ms;
  };
  for (let round = 0; round < 10; round++) {
    const order = round % 2 ? [...stacks.keys()].reverse() : [...stacks.keys()];
    for (const i of order) {
      for (const kind of ["ip", "healthz"])
        for (let n = 0; n < SINGLES / 10; n++) times[i][kind].push(await request(stacks[i], kind));
      if (round < BATCHES) times[i].batch.push(await request(stacks[i], "batch"));
    }
  }
  return stacks.map((stack, i) => {
    const [s, t, b] = [stats(times[i].ip), stats(times[i].healthz), stats(times[i].batch)];
    console.log(
      `[bench] ${stack.label} (${stack.rows} rows): single p50 ${s.p50_ms} ms vs /healthz ${t.p50_ms} ms ` +
        `(x${round2(s.p50_ms / t.p50_ms)}); ${BATCH_SIZE}-IP batch p50 ${b.p50_ms} ms ` +
        `(${round2(b.p50_ms / BATCH_SIZE)} ms an ` +
        `address)`,
    );
    return {
      rows: stack.rows,
      single: s,
      healthz: t,
      single_over_healthz: round2(s.p50_ms / t.p50_ms),
      batch_1000: b,
      batch_ms_per_address: round2(b.p50_ms / BATCH_SIZE),
    };
  });
}

/** One dataset's full package import by the operator's command, with the importer's and workerd's peak memory. */
async function fullImport({ base, worker }, dataset) {
  const peak = { workerd: 0 };
  const sampler = setInterval(
    () => (peak.workerd = Math.max(peak.workerd, sampleTree(worker.pid).workerdRssBytes)),
    250,
  );
  const t0 = performance.now();
  const importer = held.process(
    startNodeScript(join(ROOT, "scripts", "import-register.mjs"), {
      // At smoke size, every FULL_STEP-th line of the package files, through the same command.
      args:
        FULL_STEP === 1
          ? [dataset, "--package", "--json", "--url", base]
          : [
              dataset,
              ...(await tenth(dataset, FULL_STEP)),
              "--version",
              `${packageDatasetVersion(dataset)}-smoke`,
              "--json",
              "--url",
              base,
            ],
      env: { ADMIN_TOKEN },
      stdio: "pipe",
    }),
  );
  let stdout = "";
  importer.stdout.on("data", (chunk) => (stdout += chunk));
  const [code] = await once(importer, "exit");
  clearInterval(sampler);
  await held.drop(importer);
  if (code !== 0) throw new Error(`importer of ${dataset} exited ${code}`);
  const summary = JSON.parse(stdout.trim().split("\n").pop());
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `[bench] full ${dataset}: ${summary.records} rows in ${round2(seconds)} s ` +
      `(${Math.round(summary.records / seconds)} rows/s), importer peak RSS ` +
      `${round2(summary.max_rss_bytes / 2 ** 20)} MB, workerd ${round2(peak.workerd / 2 ** 20)} MB`,
  );
  return {
    dataset,
    rows: summary.records,
    seconds: round2(seconds),
    rows_per_second: Math.round(summary.records / seconds),
    importer_peak_rss_mb: round2(summary.max_rss_bytes / 2 ** 20),
    workerd_sampled_peak_rss_mb: round2(peak.workerd / 2 ** 20),
  };
}

/** A Worker on its own fresh database, with an account of plenty of credits and a pool of keys. */
async function stack(label, log) {
  const dir = join(workDir, label);
  mkdirSync(dir);
  const { base, child: worker } = await startWorker({
    held,
    dir,
    vars: { ADMIN_TOKEN },
    log,
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const account = (
    await admin.call("POST", "/accounts", {
      email: `bench-ip-${label}@example.com`,
      email_verified: true,
      plan: "enterprise",
    })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, { bucket: "pack", amount: 1_000_000 });
  const user = (
    await admin.call("POST", `/accounts/${account.id}/members`, { email: `bench-ip-user-${label}@example.com` })
  ).data.user_id;
  const keys = [];
  for (let i = 0; i < KEYS; i++)
    keys.push((await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: user })).data.key);
  return { label, base, worker, pool: keyPool(keys), rows: 0 };
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  workDir = held.tempDir("bench-ip-");
  const small = await stack("1x", "ip-wrangler-1x.log");
  const full = await stack("10x", "ip-wrangler.log");
  for (const dataset of DATASETS) {
    const summary = await importIpDataset({
      dataset,
      files: await tenth(dataset),
      version: `${packageDatasetVersion(dataset)}-tenth`,
      baseUrl: small.base,
      token: ADMIN_TOKEN,
      log: () => {},
    });
    small.rows += summary.records;
  }
  const imports = [];
  for (const dataset of DATASETS) imports.push(await fullImport(full, dataset));
  full.rows = imports.reduce((s, i) => s + i.rows, 0);
  const [at1x, at10x] = await lookups([small, full], keepAliveAgent(4));
  const growth = {
    rows: round2(full.rows / small.rows),
    single: round2(at10x.single.p50_ms / at1x.single.p50_ms),
    batch: round2(at10x.batch_1000.p50_ms / at1x.batch_1000.p50_ms),
    healthz: round2(at10x.healthz.p50_ms / at1x.healthz.p50_ms),
  };
  console.log(
    `[bench] per-lookup time at ${growth.rows}x the rows: single x${growth.single}, batch x${growth.batch}, /healthz ` +
      `x${growth.healthz} (1.0 is flat; a scan would be x10)`,
  );
  const importSeconds = imports.reduce((s, i) => s + i.seconds, 0);
  const result = {
    at: new Date().toISOString(),
    lookups_1x: at1x,
    lookups_10x: at10x,
    growth_10x_over_1x: growth,
    import: {
      datasets: imports,
      rows: full.rows,
      seconds: round2(importSeconds),
      rows_per_second: Math.round(full.rows / importSeconds),
    },
    failures,
  };
  writeFileSync(join(RESULTS_DIR, "ip.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `[bench] full import: ${full.rows} rows at ${result.import.rows_per_second} rows/s; written to ` +
      `bench/results/ip.json`,
  );
  for (const failure of failures) console.error(`[bench] ${failure}`);
  return checkRun({
    bench: "ip",
    figures: {
      "1x single p50 ms": at1x.single.p50_ms,
      "10x single p50 ms": at10x.single.p50_ms,
      "10x batch p50 ms": at10x.batch_1000.p50_ms,
      "import rows/s": result.import.rows_per_second,
    },
    errored: failures.length,
  });
}

await runBench({ main, held, timeoutMs: TIMEOUT_MS, logHint: "wrangler output: bench/results/ip-wrangler.log" });
