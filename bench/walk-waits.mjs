// @ts-check
// `npm run bench:walk-waits`: concurrent batches over the same values, and request ids a caller made up.
//
// The Worker on a fresh local stack (bench/lib/stack.mjs) with the email stand-ins of bench/email.mjs (DNS over HTTPS,
// RDAP, a real SMTP server that accepts every bench address behind the real sidecar), so every address is a
// deliverable answer billed 1 credit. Each case gets its own account (plan without grant, pack credits as stated):
//
//   alone      one batch of 10 fresh addresses at a balance of 3
//   two        two identical batches of 10 at a balance of 3, sent at once (a client retrying after its timeout)
//   beside     during `two`, a single lookup of another address on an account with 2 credits more
//   four       four identical batches of 50 at a balance of 40, sent at once
//   forged     GET /api/v1/account/requests/{id} with ids made up now (right format, fresh time, random digits)
//   genuine    the same GET for the id of a lookup just answered (read-your-writes)
//
// Reported: each batch's time, status, processed, credits_used, stopped_reason; the account's balance and ledger
// charges after; per forged and genuine GET its time and D1 primary reads (GET /admin/v1/round-trips). Writes
// bench/results/walk-waits.json. Knobs: BENCH_FORGED (20), BENCH_TIMEOUT_MS, BENCH_FROZEN (1).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { startStandIns } from "./lib/stand-ins.mjs";
import { readRoundTrips, resetRoundTrips } from "./lib/round-trips.mjs";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const FORGED = size("BENCH_FORGED", 20, 3);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 10 * 60_000);
const FROZEN = process.env.BENCH_FROZEN !== "0";
const ADMIN_TOKEN = "bench-admin-token";
const SIDECAR_SECRET = `bench-sidecar-${randomBytes(12).toString("hex")}`;
const RESULTS_DIR = join(ROOT, "bench", "results");
const TAG = randomBytes(3).toString("hex");
const DOMAIN = `bench-${TAG}.example`;

const zone = (name) => (name === DOMAIN ? { MX: ["10 127.0.0.1."] } : undefined);

const held = resources();

await runBench({
  main,
  held,
  timeoutMs: TIMEOUT_MS,
  logHint: "output: bench/results/walk-waits-wrangler.log, bench/results/walk-waits-sidecar.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { sidecar, vars } = await startStandIns(held, {
    zone,
    registeredOn: (name) => (name === DOMAIN ? "2015-03-01" : undefined),
    accepts: (_local, domain) => domain === DOMAIN,
    sidecar: { secret: SIDECAR_SECRET, logFile: join(RESULTS_DIR, "walk-waits-sidecar.log"), paced: true },
  });
  const [{ base }] = await Promise.all([
    startWorker({
      held,
      dir: held.tempDir("walk-waits-bench-"),
      vars: { ADMIN_TOKEN, ...vars },
      log: "walk-waits-wrangler.log",
      frozen: FROZEN,
      logLevel: "warn",
    }),
    sidecar.ready(),
  ]);
  const admin = adminClient(base, ADMIN_TOKEN);
  let accounts = 0;

  /** A verified account without a monthly grant, `pack` credits and one secret key of every scope. */
  async function account(pack) {
    const email = `walk-${++accounts}-${TAG}@example.com`;
    const acct = (await admin.call("POST", "/accounts", { email, email_verified: true, plan: "enterprise" })).data;
    await admin.call("POST", `/accounts/${acct.id}/credits`, { bucket: "pack", amount: pack });
    const member = (await admin.call("POST", `/accounts/${acct.id}/members`, { email })).data;
    const key = (await admin.call("POST", `/accounts/${acct.id}/keys/secret`, { user_id: member.user_id })).data.key;
    return { id: acct.id, key };
  }

  /** One API call, timed: status, body, milliseconds. */
  async function api(key, method, path, body) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(120_000),
    });
    const json = await res.json();
    return { status: res.status, body: json, ms: Math.round(performance.now() - started) };
  }

  const addresses = (label, n) => Array.from({ length: n }, (_, i) => `${label}-${i}@${DOMAIN}`);
  const batchRow = ({ status, body, ms }) => ({
    status,
    ms,
    ...(status === 200
      ? {
          processed: body.meta.processed,
          credits_used: body.meta.credits_used,
          stopped_reason: body.meta.stopped_reason,
        }
      : { code: body.error?.code, message: body.error?.message }),
  });
  async function after(acct) {
    // Past the key's 5 requests a second, which the batches just spent (four at once and two reads: a 429 otherwise).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { body } = await api(acct.key, "GET", "/account");
    const ledger = await api(acct.key, "GET", "/account/ledger");
    const charged = ledger.body.data.entries
      .filter((e) => e.kind === "charge")
      .reduce((sum, e) => sum - e.plan_delta - (e.pack_delta ?? 0), 0);
    return { account: body.data, ledger_charged: charged };
  }

  const results = {};
  // Warm the stack (bundle, DO classes, sidecar connection) so the first case measures the walk, not a cold start.
  const warm = await account(5);
  await api(warm.key, "POST", "/email/batch", { emails: addresses("warm", 2) });

  const alone = await account(3);
  results.alone = {
    batch: batchRow(await api(alone.key, "POST", "/email/batch", { emails: addresses("alone", 10) })),
    after: await after(alone),
  };

  const two = await account(3);
  const beside = await account(5);
  const same = addresses("two", 10);
  const besideSame = addresses("beside", 10);
  const [a, b, c, d, single] = await Promise.all([
    api(two.key, "POST", "/email/batch", { emails: same }),
    api(two.key, "POST", "/email/batch", { emails: same }),
    api(beside.key, "POST", "/email/batch", { emails: besideSame }),
    api(beside.key, "POST", "/email/batch", { emails: besideSame }),
    new Promise((resolve) => setTimeout(resolve, 150)).then(() =>
      api(beside.key, "POST", "/email", { email: `single-${TAG}@${DOMAIN}` }),
    ),
  ]);
  results.two = { batches: [a, b].map(batchRow), after: await after(two) };
  results.beside = {
    batches: [c, d].map(batchRow),
    single: { status: single.status, ms: single.ms, code: single.body.error?.code ?? null },
    after: await after(beside),
  };

  const four = await account(40);
  const fifty = addresses("four", 50);
  const runs = await Promise.all(
    Array.from({ length: 4 }, () => api(four.key, "POST", "/email/batch", { emails: fifty })),
  );
  results.four = { batches: runs.map(batchRow), after: await after(four) };

  const reader = await account(1);
  const digits = () => randomBytes(10).toString("hex");
  await resetRoundTrips(admin);
  const forged = [];
  for (let i = 0; i < FORGED; i++) {
    // Paced under the key's 5 requests a second, so every GET is served (none refused 429).
    if (i) await new Promise((resolve) => setTimeout(resolve, 250));
    const id = `req_${Date.now().toString(16).padStart(12, "0")}${digits()}`;
    const { status, ms } = await api(reader.key, "GET", `/account/requests/${id}`);
    forged.push({ status, ms });
  }
  const forgedTrips = routeTrips(await readRoundTrips(admin));
  await resetRoundTrips(admin);
  // Past the key's 5 requests a second that the made-up ids just used.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const looked = await api(reader.key, "POST", "/email", { email: `reader-${TAG}@${DOMAIN}` });
  const genuine = await api(reader.key, "GET", `/account/requests/${looked.body.meta.request_id}`);
  const genuineTrips = routeTrips(await readRoundTrips(admin));
  results.forged = {
    requests: FORGED,
    statuses: [...new Set(forged.map((f) => f.status))],
    ms: summary(forged.map((f) => f.ms)),
    round_trips: forgedTrips,
  };
  results.genuine = { status: genuine.status, ms: genuine.ms, round_trips: genuineTrips };

  console.log(JSON.stringify(results, null, 2));
  writeFileSync(
    join(RESULTS_DIR, "walk-waits.json"),
    `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
  );
  console.log("[bench] wrote bench/results/walk-waits.json");
  const batches = [a, b, c, d, ...runs];
  // The single lookup beside the batches is reported, not counted: once the batches have spent the balance (they no
  // longer wait), its 402 is the honest answer, not the false one the bench was written to catch.
  const statuses = [...batches.map((r) => r.status), genuine.status];
  // Forged ids are meant to be 404: any other answer is a failure of the check, counted as errored.
  const forgedWrong = forged.filter((f) => f.status !== 404).length;
  return checkRun({
    bench: "walk-waits",
    figures: {
      alone_ms: results.alone.batch.ms,
      two_max_ms: Math.max(a.ms, b.ms),
      four_max_ms: Math.max(...runs.map((r) => r.ms)),
      forged_median_ms: results.forged.ms.median,
      genuine_ms: genuine.ms,
    },
    refused: statuses.filter((status) => status >= 400 && status < 500).length,
    errored: statuses.filter((status) => status >= 500).length + forgedWrong,
  });
}

/** The figures of GET /api/v1/account/requests/{id}: requests and D1 primary reads and DO calls before the answer. */
function routeTrips(figures) {
  const route = figures["GET /api/v1/account/requests/:requestId"];
  if (!route) return null;
  return { requests: route.requests, d1_primary: route.before_answer.d1_primary, do: route.before_answer.do };
}

function summary(values) {
  const sorted = [...values].sort((x, y) => x - y);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) };
}
