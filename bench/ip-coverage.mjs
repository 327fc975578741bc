// @ts-check
// `npm run bench:ip-coverage`: the share of real addresses the IP answers place, with the shipped samples and with the
// full tables of the installed packages (country, ASN, city).
//
// The addresses: BENCH_ADDRESSES (1,000) drawn from the installed @ip-location-db/asn files (IPv4 and IPv6), one row
// picked at random among all ~515,000 announced ranges (so every network counts once, however large) and a random
// address inside it: addresses some network really announces. The draw is seeded (BENCH_SEED, 1): the same list every
// run. The few the special-purpose table answers as reserved (6to4, Teredo blocks the file lists) are left out of
// the shares and counted apart.
//
// One Worker under `wrangler dev` on a throw-away database (bench/lib/stack.mjs). First it answers with the samples
// `npm run dev` used to load (scripts/import-ip.mjs loadIpSamples: 36 country rows, 42 AS rows, 31 city rows); then it
// is stopped, the full tables are written into its database exactly as `npm run dev` does now
// (scripts/lib/local-ip-tables.mjs), and it is started again. Both times the list is asked in one POST /ip/batch.
// Prints and writes bench/results/ip-coverage.json: placed (country), asn, city, hosting_provider shares, both ways.
import { runBench } from "./lib/harness.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { createReadStream, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { benchAccount, keepAliveAgent, round2, send } from "./lib/load.mjs";
import { checkRun, SMOKE, size } from "./lib/report.mjs";
import "../scripts/lib/ts-imports.mjs";

requireNode22();

const { loadIpSamples } = await import("../scripts/import-ip.mjs");
const { loadFullIpTables, localD1File } = await import("../scripts/lib/local-ip-tables.mjs");
const { packageFiles } = await import("../datasets/ip/build.mjs");
const { readRange } = await import("../src/products/ip/datasets.ts");
const { formatIp } = await import("../src/platform/ip-address.ts");

const ADDRESSES = size("BENCH_ADDRESSES", 1_000, 50);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const held = resources();
let workDir = null;

/** mulberry32: a small seeded generator, so the drawn list is the same every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every announced range of the ASN package files, as [first, last] addresses. */
async function announcedRanges() {
  /** @type {[{ version: 4 | 6, value: bigint }, { version: 4 | 6, value: bigint }][]} */
  const ranges = [];
  for (const file of packageFiles("ip-asn")) {
    for await (const line of createInterface({ input: createReadStream(file) })) {
      const [start, end] = line.split(",");
      const range = readRange(start ?? "", end ?? "", null);
      if (range) ranges.push(range);
    }
  }
  return ranges;
}

async function drawAddresses() {
  const next = random(SEED);
  const ranges = await announcedRanges();
  const out = new Set();
  while (out.size < ADDRESSES) {
    const [first, last] = ranges[Math.floor(next() * ranges.length)];
    const span = last.value - first.value + 1n;
    // 53 random bits are plenty to land anywhere in a range of up to 2^53 addresses; wider IPv6 ranges: their first
    // 2^53.
    const offset = BigInt(Math.floor(next() * 2 ** 53)) % span;
    out.add(formatIp({ version: first.version, value: first.value + offset }));
  }
  return { addresses: [...out], ranges: ranges.length };
}

async function measure(base, key, addresses) {
  const agent = keepAliveAgent(1);
  const res = await send(agent, `${base}/api/v1/ip/batch`, {
    method: "POST",
    key,
    body: { ips: addresses },
    read: true,
    timeoutMs: 120_000,
  });
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${res.text.slice(0, 300)}`);
  const all = JSON.parse(res.text).data.results.map((r) => r.data);
  const answers = all.filter((a) => !a.reserved);
  const share = (pick) => {
    const n = answers.filter(pick).length;
    return { count: n, share: round2((100 * n) / answers.length) };
  };
  const versions = Object.fromEntries(answers[0].sources.map((s) => [s.dataset, s.version]));
  return {
    addresses: answers.length,
    reserved: all.length - answers.length,
    placed: share((a) => a.placed),
    asn: share((a) => a.asn !== null),
    city: share((a) => a.city !== null),
    coordinates: share((a) => a.latitude !== null),
    hosting_provider: share((a) => a.hosting_provider !== null),
    batch_ms: Math.round(res.ms),
    versions: { "ip-country": versions["ip-country"], "ip-asn": versions["ip-asn"], "ip-city": versions["ip-city"] },
  };
}

/** The Worker on the bench's database: its address and its process (stopped with held.drop). */
async function start() {
  return startWorker({
    held,
    dir: workDir,
    vars: { ADMIN_TOKEN },
    log: "ip-coverage-wrangler.log",
    frozen: false,
    logLevel: "warn",
  });
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const loadBefore = loadavg().map(round2);
  const { addresses, ranges } = await drawAddresses();
  console.log(`[bench] ${addresses.length} addresses drawn from ${ranges} announced ranges (seed ${SEED})`);
  workDir = held.tempDir("ip-coverage-bench-");

  let { base, child } = await start();
  await loadIpSamples({ baseUrl: base, token: ADMIN_TOKEN, log: (line) => console.log(line) });
  const pool = await benchAccount(adminClient(base, ADMIN_TOKEN), 1);
  const key = await pool.next();
  const samples = await measure(base, key, addresses);
  console.log(
    `[bench] samples: placed ${samples.placed.share}%, AS ${samples.asn.share}%, city ${samples.city.share}%`,
  );

  if (SMOKE) {
    // The full tables take minutes to load: the smoke run checks the samples' path only.
    return checkRun({
      bench: "ip-coverage",
      figures: { "sample addresses answered": samples.addresses, "sample batch ms": samples.batch_ms },
    });
  }
  await held.drop(child);
  const loadStarted = performance.now();
  await loadFullIpTables({
    file: localD1File(ROOT, join(workDir, "state")),
    log: (line) => console.log(line.replace("[dev]", "[bench]")),
  });
  const loadSeconds = round2((performance.now() - loadStarted) / 1000);
  ({ base } = await start());
  const full = await measure(base, key, addresses);
  console.log(`[bench] full tables: placed ${full.placed.share}%, AS ${full.asn.share}%, city ${full.city.share}%`);

  const results = {
    at: new Date().toISOString(),
    machine: { load_average_before: loadBefore, load_average_after: loadavg().map(round2) },
    draw: { addresses: addresses.length, from_announced_ranges: ranges, seed: SEED },
    samples,
    full_tables: { ...full, load_seconds: loadSeconds },
  };
  writeFileSync(join(RESULTS_DIR, "ip-coverage.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("");
  console.log(`  ${addresses.length} real addresses      samples    full tables`);
  for (const field of ["placed", "asn", "city", "coordinates", "hosting_provider"]) {
    console.log(
      `  ${field.padEnd(22)} ${`${samples[field].share}%`.padStart(7)}    ${`${full[field].share}%`.padStart(7)}`,
    );
  }
  console.log("\n[bench] written to bench/results/ip-coverage.json");
  return checkRun({
    bench: "ip-coverage",
    figures: {
      "placed %": full.placed.share,
      "AS %": full.asn.share,
      "city %": full.city.share,
      "full tables load s": loadSeconds,
    },
  });
}

await runBench({
  main,
  held,
  timeoutMs: 30 * 60_000,
  logHint: "wrangler output: bench/results/ip-coverage-wrangler.log",
});
