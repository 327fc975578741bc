// @ts-check
// `npm run bench:partners`: what a partner check adds, measured on the local stack (wrangler dev with local D1 and
// Durable Objects) against the partners' stand-in (test/fixtures/partners.ts) on loopback.
//
// Set-up (torn down at the end): the stand-in in this process with BENCH_PARTNER_LATENCY_MS (50) added to every answer,
// as a real partner's network time would be; the Worker under `wrangler dev` on a free port, a fresh database, its
// partner URLs and stand-in credentials pointing at the stand-in; one account with pack credits and a pool of keys.
//
// (a) Added latency: BENCH_REQUESTS (60) single `POST /api/v1/phone` of fresh US numbers with `network: true`, and as
//     many without, alternating, one at a time; and in the same run as many direct calls to the stand-in's Twilio
//     path (its own latency). Reported: p50/p90 of each, and checked p50 - stand-in p50 (what our side adds to a
//     partner call) and checked p50 - unchecked p50 (what the check adds to a lookup).
// (b) Dedupe: one `POST /api/v1/phone/batch` of 1,000 rows holding BENCH_DISTINCT (250) distinct numbers (each 4 times,
//     in two spellings), `network: true`. Reported: the partner calls it caused (the stand-in's count), calls per
//     distinct number, the share of rows answered without a call of their own, and the credits charged.
//
// Writes bench/results/partners.json. Exits 1 on an unexpected answer.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { keepAliveAgent, keyPool, percentile, round2, send, stats } from "./lib/load.mjs";
import { partnerVars, startPartners } from "../test/fixtures/partners.ts";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const REQUESTS = size("BENCH_REQUESTS", 60, 4);
const DISTINCT = size("BENCH_DISTINCT", 250, 10);
const BATCH_ROWS = size("BENCH_BATCH_ROWS", 1_000, 40);
const LATENCY_MS = num("BENCH_PARTNER_LATENCY_MS", 50);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");

const held = resources();

/** Fresh valid US numbers (NANP 650-2XX-XXXX; lines 1000-9999 are the stand-in's plain mobile answer), none twice. */
let exchange = 201;
let line = 999;
const freshNumber = () => {
  if (++line > 9999) (line = 1000), exchange++;
  return `+1650${exchange}${line}`;
};

const p90 = (values) => round2(percentile(Float64Array.from(values).sort(), 90));

await runBench({
  main,
  held,
  timeoutMs: num("BENCH_TIMEOUT_MS", 10 * 60_000),
  logHint: "wrangler output: bench/results/partners-wrangler.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const loadBefore = loadavg().map(round2);
  const partners = held.closer(await startPartners());
  await fetch(`${partners.url}/control`, { method: "POST", body: JSON.stringify({ latency_ms: LATENCY_MS }) });
  const { base } = await startWorker({
    held,
    dir: held.tempDir("partners-bench-"),
    vars: { ADMIN_TOKEN, ...partnerVars(partners.url), PARTNER_DAILY_CALLS: "100000" },
    log: "partners-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: process.env.BENCH_WRANGLER_LOG_LEVEL ?? "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const account = (
    await admin.call("POST", "/accounts", { email: "bench-partners@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${account.id}/credits`, {
    bucket: "pack",
    amount: 100_000,
    note: "bench:partners",
  });
  const member = (await admin.call("POST", `/accounts/${account.id}/members`, { email: "bench-partners@example.com" }))
    .data;
  const keys = [];
  for (let i = 0; i < 4; i++)
    keys.push(
      (await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id, scopes: ["phone"] }))
        .data.key,
    );
  const pool = keyPool(keys);
  const agent = keepAliveAgent(4);
  const failures = [];

  // (a) one at a time, alternating, so both see the same machine load.
  const checked = [];
  const plain = [];
  const direct = [];
  const auth =
    `Basic ` +
    `${Buffer.from(`${partnerVars("").TWILIO_ACCOUNT_SID}:${partnerVars("").TWILIO_AUTH_TOKEN}`).toString("base64")}`;
  for (let i = 0; i < REQUESTS; i++) {
    const a = await send(agent, `${base}/api/v1/phone`, {
      method: "POST",
      key: await pool.next(),
      body: { phone: freshNumber(), network: true },
      read: true,
    });
    const data = JSON.parse(a.text).data;
    if (a.status !== 200 || data?.network_checked !== true)
      failures.push(`checked lookup: ${a.status} ${a.text.slice(0, 200)}`);
    checked.push(a.ms);
    const b = await send(agent, `${base}/api/v1/phone`, {
      method: "POST",
      key: await pool.next(),
      body: { phone: freshNumber() },
    });
    if (b.status !== 200) failures.push(`plain lookup: ${b.status}`);
    plain.push(b.ms);
    const c = await send(
      agent,
      `${partners.url}/v2/PhoneNumbers/${encodeURIComponent(freshNumber())}?Fields=line_type_intelligence`,
      { headers: { Authorization: auth } },
    );
    direct.push(c.ms);
  }
  const sc = stats(checked);
  const sp = stats(plain);
  const sd = stats(direct);
  const latency = {
    requests: REQUESTS,
    stand_in_latency_setting_ms: LATENCY_MS,
    checked_lookup: { p50_ms: sc.p50_ms, p90_ms: p90(checked) },
    unchecked_lookup: { p50_ms: sp.p50_ms, p90_ms: p90(plain) },
    stand_in_direct: { p50_ms: sd.p50_ms, p90_ms: p90(direct) },
    added_over_stand_in_p50_ms: round2(sc.p50_ms - sd.p50_ms),
    added_over_unchecked_p50_ms: round2(sc.p50_ms - sp.p50_ms),
  };
  console.log(
    `[bench] (a) checked p50 ${latency.checked_lookup.p50_ms} ms, unchecked p50 ${latency.unchecked_lookup.p50_ms} ` +
      `ms, stand-in alone p50 ${latency.stand_in_direct.p50_ms} ms: added over the stand-in ` +
      `${latency.added_over_stand_in_p50_ms} ms`,
  );

  // (b) 1,000 rows, DISTINCT numbers, each four times in two spellings.
  const distinct = Array.from({ length: DISTINCT }, freshNumber);
  const rows = [];
  for (let i = 0; rows.length < BATCH_ROWS; i++) {
    const n = distinct[i % DISTINCT];
    rows.push(i % 2 ? n : { phone: n.replace("+1", ""), country: "US" });
  }
  const statsBefore = await (await fetch(`${partners.url}/stats`)).json();
  const before = Object.values(statsBefore.twilio).reduce((s, n) => s + n, 0);
  const batch = await send(agent, `${base}/api/v1/phone/batch`, {
    method: "POST",
    key: await pool.next(),
    body: { phones: rows, network: true },
    read: true,
    timeoutMs: 120_000,
  });
  const body = JSON.parse(batch.text);
  const statsAfter = await (await fetch(`${partners.url}/stats`)).json();
  const calls = Object.values(statsAfter.twilio).reduce((s, n) => s + n, 0) - before;
  const checkedRows = body.data?.results?.filter((r) => r.data.network_checked).length ?? 0;
  if (batch.status !== 200 || checkedRows !== rows.length)
    failures.push(`batch: ${batch.status}, ${checkedRows} of ${rows.length} rows checked`);
  const dedupe = {
    rows: rows.length,
    distinct: DISTINCT,
    partner_calls: calls,
    calls_per_distinct: round2(calls / DISTINCT),
    rows_checked: checkedRows,
    share_of_rows_without_own_call: round2(1 - calls / rows.length),
    credits_used: body.meta?.credits_used ?? null,
    batch_ms: round2(batch.ms),
  };
  console.log(
    `[bench] (b) ${rows.length} rows, ${DISTINCT} distinct: ${calls} partner calls ` +
      `(${dedupe.calls_per_distinct} per distinct ` +
      `number), ${checkedRows} rows checked, ${dedupe.credits_used} credits, ${dedupe.batch_ms} ms`,
  );

  const results = {
    at: new Date().toISOString(),
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
    },
    latency,
    dedupe,
    failures,
  };
  writeFileSync(join(RESULTS_DIR, "partners.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("[bench] wrote bench/results/partners.json");
  if (failures.length)
    console.error(`[bench] ${failures.length} unexpected answers:\n${failures.slice(0, 5).join("\n")}`);
  return checkRun({
    bench: "partners",
    figures: {
      "checked p50 ms": latency.checked_lookup.p50_ms,
      "unchecked p50 ms": latency.unchecked_lookup.p50_ms,
      "batch partner calls": calls,
      "batch credits used": dedupe.credits_used,
    },
    errored: failures.length,
  });
}
