// @ts-check
// `npm run bench:hot-path`: what distance to the account's object and to D1's primary costs each product's lookups.
//
// The Worker runs twice under `wrangler dev` (fresh throw-away database each, bench/lib/stack.mjs): once as is, once
// with the development switch DEV_ADDED_LATENCY_MS=50 (BENCH_ADDED_MS), which waits that long before every Durable
// Object call and D1 primary query the Worker makes (src/platform/traced-env.ts), standing for a caller on another
// continent. Each stack gets the IP and address samples `npm run dev` loads, the local stand-ins of bench/email.mjs
// (DNS over HTTPS, RDAP, a real SMTP server behind the real sidecar) and one account with pack credits and a pool of
// keys (5 requests a second each).
//
// Per product, one request at a time: BENCH_LOOKUPS fresh values (a billed answer each: phone numbers, public IPv4
// addresses inside the sample ranges, Springfield house numbers, addresses at a fixture domain whose mail server
// accepts them, consistency checks of a UK mobile and a London address), then the same values again (repeats, free).
// Reported per product and latency: p50 / p90 of the paid and of the repeat lookups, the credits they used, the
// Worker's own round-trip counters (GET /admin/v1/round-trips: DO, D1 primary, D1 replica before and after the answer)
// and D1 primary writes per 1,000 paid lookups; then, per product, what 50 ms added to each p50 (target: at most
// 60 ms). Writes bench/results/hot-path.json. Knobs: BENCH_LOOKUPS (60), BENCH_ADDED_MS (50), BENCH_TIMEOUT_MS.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { startStandIns } from "./lib/stand-ins.mjs";
import { keepAliveAgent, keyPool, percentile, round2, send } from "./lib/load.mjs";
import { readRoundTrips, resetRoundTrips } from "./lib/round-trips.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { loadIpSamples } from "../scripts/import-ip.mjs";
import { loadAddressData } from "../scripts/import-address.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
// Six at smoke size: the warm-up opens an IP credit of five lookups, so the sixth is the first that charges one.
const LOOKUPS = size("BENCH_LOOKUPS", 60, 6);
const ADDED_MS = num("BENCH_ADDED_MS", 50);
const TARGET_ADDED_MS = 60;
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 30 * 60_000);
const KEYS = size("BENCH_KEYS", 40, 8);
const ADMIN_TOKEN = "bench-admin-token";
const SIDECAR_SECRET = `bench-sidecar-${randomBytes(12).toString("hex")}`;
const RESULTS_DIR = join(ROOT, "bench", "results");
const TAG = randomBytes(3).toString("hex");

const isBenchDomain = (name) => /^bench-[a-z0-9-]+\.example$/.test(name);
const zone = (name) => {
  if (isBenchDomain(name)) return { MX: ["10 127.0.0.1."], TXT: ['"v=spf1 include:_spf.example -all"'] };
  if (name.startsWith("_dmarc.") && isBenchDomain(name.slice(7)))
    return { TXT: ['"v=DMARC1; p=reject; rua=mailto:d@example.com"'] };
  return undefined;
};
// Local parts with a "-" are accepted (the sidecar's random catch-all probe never has one).
const accepts = (local, domain) => isBenchDomain(domain) && local.includes("-");

let counter = 0;
const digits = (n) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, "0");
const octet = () => 1 + Math.floor(Math.random() * 254);
const LONDON = { line1: "10 Downing Street", locality: "London", postcode: "SW1A 2AA", country: "GB" };

/** Each product's route and a fresh value's body (`n`: this run's sequence number, so values never repeat). */
/** @type {Record<string, () => object>} */
const PRODUCTS = {
  phone: () => ({ phone: `+447400${String(++counter).padStart(6, "0")}` }),
  ip: () => ({ ip: `7.${octet()}.${octet()}.${octet()}` }),
  address: () => ({
    address: { line1: `${++counter} Main St`, locality: "Springfield", region: "IL", postcode: "62701", country: "US" },
  }),
  email: () => ({ email: `user-${++counter}@bench-${TAG}.example` }),
  consistency: () => ({ phone: `+447401${digits(6)}`, address: LONDON }),
};

const held = resources();

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "wrangler and sidecar output: bench/results/hot-path-wrangler-*.log, bench/results/hot-path-sidecar.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const standIns = await startStandIns(held, {
    zone,
    registeredOn: (name) => (isBenchDomain(name) ? "2015-03-01" : undefined),
    accepts,
    sidecar: { secret: SIDECAR_SECRET, logFile: join(RESULTS_DIR, "hot-path-sidecar.log"), paced: true },
  });
  await standIns.sidecar.ready();

  const failures = [];
  const runs = {};
  for (const added of [0, ADDED_MS]) {
    const dir = held.tempDir("hot-path-bench-");
    const vars = {
      ADMIN_TOKEN,
      DEV_ADDED_LATENCY_MS: String(added),
      ...standIns.vars,
    };
    const { base, child } = await startWorker({
      held,
      dir,
      vars,
      log: `hot-path-wrangler-${added}.log`,
      frozen: true,
      logLevel: "warn",
    });
    const admin = adminClient(base, ADMIN_TOKEN);
    const quiet = () => {};
    await loadIpSamples({ baseUrl: base, token: ADMIN_TOKEN, log: quiet });
    await loadAddressData({ baseUrl: base, token: ADMIN_TOKEN, log: quiet });
    const pool = await account(admin);
    const agent = keepAliveAgent(1);
    runs[added] = {};
    for (const [product, fresh] of Object.entries(PRODUCTS)) {
      // One of each first: the isolate's key cache, the policy version and the code paths are warm when measured.
      await lookup(agent, base, pool, product, fresh(), failures);
      const bodies = Array.from({ length: LOOKUPS }, fresh);
      runs[added][product] = {
        paid: await phase(agent, base, admin, pool, product, bodies, failures),
        repeat: await phase(agent, base, admin, pool, product, bodies, failures),
      };
      const { paid, repeat } = runs[added][product];
      console.log(
        `[bench] +${added} ms ${product.padEnd(12)} paid p50 ${paid.p50_ms} ms (${paid.credits} credits)   repeat ` +
          `p50 ${repeat.p50_ms} ms (${repeat.credits} credits)`,
      );
    }
    agent.destroy();
    await held.drop(child);
  }

  const products = Object.keys(PRODUCTS).map((product) => {
    const [near, far] = [runs[0][product], runs[ADDED_MS][product]];
    const added = {
      paid: round2(far.paid.p50_ms - near.paid.p50_ms),
      repeat: round2(far.repeat.p50_ms - near.repeat.p50_ms),
    };
    return {
      product,
      near,
      far,
      added_p50_ms: added,
      target_met: added.paid <= TARGET_ADDED_MS && added.repeat <= TARGET_ADDED_MS,
    };
  });
  print(products);
  const results = {
    at: new Date().toISOString(),
    config: { lookups: LOOKUPS, added_ms: ADDED_MS, target_added_ms: TARGET_ADDED_MS },
    products,
    failures,
    valid: failures.length === 0,
  };
  writeFileSync(join(RESULTS_DIR, "hot-path.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("[bench] wrote bench/results/hot-path.json");
  for (const f of failures.slice(0, 20)) console.error(`  ${f}`);
  return checkRun({
    bench: "hot-path",
    figures: Object.fromEntries(
      products.flatMap((p) => [
        [`${p.product} paid p50 ms`, p.near.paid.p50_ms],
        [`${p.product} paid credits`, p.near.paid.credits],
        [`${p.product} repeat p50 ms`, p.near.repeat.p50_ms],
      ]),
    ),
    errored: failures.length,
  });
}

/** A verified account with pack credits and KEYS secret keys of every scope. */
async function account(admin) {
  const acct = (
    await admin.call("POST", "/accounts", { email: "bench@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${acct.id}/credits`, { bucket: "pack", amount: 100_000 });
  const member = (await admin.call("POST", `/accounts/${acct.id}/members`, { email: "bench@example.com" })).data;
  const keys = [];
  for (let i = 0; i < KEYS; i++)
    keys.push((await admin.call("POST", `/accounts/${acct.id}/keys/secret`, { user_id: member.user_id })).data.key);
  return keyPool(keys);
}

async function lookup(agent, base, pool, product, body, failures) {
  const res = await send(agent, `${base}/api/v1/${product}`, {
    method: "POST",
    key: await pool.next(),
    body,
    read: true,
  });
  if (res.status !== 200)
    failures.push(`${product} ${JSON.stringify(body)} answered ${res.status}: ${res.text.slice(0, 200)}`);
  const meta = res.status === 200 ? JSON.parse(res.text).meta : null;
  return { ms: res.ms, credits: meta?.credits_used ?? 0 };
}

/** The bodies one at a time: p50/p90, credits used, and the Worker's counters for them. */
async function phase(agent, base, admin, pool, product, bodies, failures) {
  await resetRoundTrips(admin);
  const answers = [];
  for (const body of bodies) answers.push(await lookup(agent, base, pool, product, body, failures));
  // Work after the answer (deferred writes, the request log) is counted as it finishes.
  await sleep(500);
  const figures = (await readRoundTrips(admin))[`POST /api/v1/${product}`];
  const sorted = Float64Array.from(answers.map((a) => a.ms)).sort();
  const side = (kinds) => Object.fromEntries(["do", "d1_primary", "d1_replica"].map((k) => [k, kinds[k].mean]));
  const writes = figures
    ? figures.d1_primary_writes.before_answer.mean + figures.d1_primary_writes.after_answer.mean
    : null;
  return {
    lookups: answers.length,
    p50_ms: round2(percentile(sorted, 50)),
    p90_ms: round2(percentile(sorted, 90)),
    credits: answers.reduce((n, a) => n + a.credits, 0),
    before_answer: figures ? side(figures.before_answer) : null,
    after_answer: figures ? side(figures.after_answer) : null,
    d1_primary_writes_per_1000: writes === null ? null : Math.round(writes * 1000),
  };
}

function print(products) {
  const f = (n) => (n === null || n === undefined ? "-" : String(n));
  const trips = (side) => (side ? `${f(side.do)}/${f(side.d1_primary)}/${f(side.d1_replica)}` : "-");
  console.log(
    `\nOne lookup at a time, ${LOOKUPS} per phase; round trips per request as DO/D1 primary/D1 replica, before | ` +
      `after the answer`,
  );
  console.log(
    [
      "product".padEnd(12),
      "phase".padEnd(7),
      "p50 +0".padStart(9),
      `p50 +${ADDED_MS}`.padStart(9),
      "added".padStart(8),
      "credits".padStart(8),
      "  trips +0 before | after".padEnd(30),
      "D1 writes/1000".padStart(15),
    ].join(""),
  );
  for (const p of products) {
    for (const name of ["paid", "repeat"]) {
      const [near, far] = [p.near[name], p.far[name]];
      console.log(
        [
          p.product.padEnd(12),
          name.padEnd(7),
          f(near.p50_ms).padStart(9),
          f(far.p50_ms).padStart(9),
          f(p.added_p50_ms[name]).padStart(8),
          f(near.credits).padStart(8),
          `  ${trips(near.before_answer)} | ${trips(near.after_answer)}`.padEnd(30),
          f(near.d1_primary_writes_per_1000).padStart(15),
        ].join(""),
      );
    }
  }
  console.log(
    `\ntarget: ${ADDED_MS} ms of distance adds at most ${TARGET_ADDED_MS} ms to any lookup's p50: ` +
      `${products.every((p) => p.target_met) ? "met" : "NOT met"}`,
  );
}
