// @ts-check
// `npm run bench:policy`: what a sending policy adds to an email answer, as a ratio against the same answers without
// one, measured in the same run.
//
// Starts the Worker as bench/overhead.mjs does (wrangler dev, throw-away local state), creates two verified accounts
// with `email`-scoped keys, and gives the second a policy with every kind of rule, 1,000 blocked and 1,000 allowed
// domains included (the largest policy PUT accepts). Then drives POST /api/v1/email/batch with 50 test addresses
// (canned answers: no DNS, no SMTP, no credits, so the policy's own read and evaluation are what differs) for both
// accounts in alternating blocks at BENCH_CONCURRENCY, then one request at a time. Prints p50/p99/req/s and the ratio
// policy p50 / no-policy p50 (target <= 1.1x), and writes bench/results/policy.json. Exits 1 if a request was not
// answered 200 or an answer lacks the expected decision, or with BENCH_ENFORCE=1 when the target is missed.
// Knobs: BENCH_CONCURRENCY, BENCH_REQUESTS, BENCH_WARMUP, BENCH_ROUNDS, BENCH_SERIAL_REQUESTS, BENCH_KEYS.
import { runBench } from "./lib/harness.mjs";
import { checkRun, size, statusCounts } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";
import { alternate, keepAliveAgent, keyPool, printTable, route, round2, send } from "./lib/load.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const CONCURRENCY = num("BENCH_CONCURRENCY", 4);
const REQUESTS = size("BENCH_REQUESTS", 600, 12);
const WARMUP = size("BENCH_WARMUP", 100, 4);
const ROUNDS = size("BENCH_ROUNDS", 6, 2);
const SERIAL_REQUESTS = size("BENCH_SERIAL_REQUESTS", 200, 4);
const KEYS = size("BENCH_KEYS", 40, 8);
const TARGET_RATIO = 1.1;
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");

const LOCALS = ["deliverable", "unverified", "catch-all", "disposable", "role", "undeliverable"];
const BATCH = Array.from({ length: 50 }, (_, i) => `${LOCALS[i % LOCALS.length]}+${i}@service.test`);
const domains = (label) => Array.from({ length: 1000 }, (_, i) => `${label}-${i}.example.com`);
const POLICY = {
  deliverable: { risky: "review", undeliverable: "block" },
  risk_level: { high: "block", medium: "review" },
  reasons: { unverified: "review" },
  disposable: "block",
  role: "review",
  catch_all: "review",
  free_provider: "review",
  did_you_mean: "review",
  blocked_domains: domains("blocked"),
  allowed_domains: domains("allowed"),
};

const held = resources();

await runBench({
  main,
  held,
  timeoutMs: 8 * 60_000,
  logHint: "wrangler output: bench/results/policy-wrangler.log",
});

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { base } = await startWorker({
    held,
    dir: held.tempDir("policy-bench-"),
    vars: { ADMIN_TOKEN },
    log: "policy-wrangler.log",
    frozen: true,
    logLevel: "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const [plain, policed] = [
    keyPool(await createKeys(admin, "plain", KEYS)),
    keyPool(await createKeys(admin, "policed", KEYS)),
  ];
  const agent = keepAliveAgent(CONCURRENCY);
  const key = await policed.next();
  const put = await send(agent, `${base}/api/v1/email/policy`, { method: "PUT", key, body: POLICY, read: true });
  if (put.status !== 200) throw new Error(`PUT /email/policy answered ${put.status}: ${put.text}`);
  const check = JSON.parse(
    (
      await send(agent, `${base}/api/v1/email/batch`, {
        method: "POST",
        key: await policed.next(),
        body: { emails: BATCH },
        read: true,
      })
    ).text,
  );
  const decided = check.data.results.every((r) => r.data.policy?.action);
  if (!decided) throw new Error("a policed answer carries no decision");

  const routes = () => [
    route("batch, no policy", "/api/v1/email/batch", async () => ({
      method: "POST",
      key: await plain.next(),
      body: { emails: BATCH },
    })),
    route("batch, policy", "/api/v1/email/batch", async () => ({
      method: "POST",
      key: await policed.next(),
      body: { emails: BATCH },
    })),
  ];
  console.log(
    `[bench] warm-up, then ${REQUESTS} batches of 50 per route in ${ROUNDS} alternating blocks, concurrency ` +
      `${CONCURRENCY}`,
  );
  for (const r of routes()) await r.run(agent, base, WARMUP, CONCURRENCY, { record: false });
  const loaded = await alternate(routes(), agent, base, REQUESTS, ROUNDS, CONCURRENCY);
  console.log(`[bench] then ${SERIAL_REQUESTS} per route one at a time`);
  const serial = SERIAL_REQUESTS > 0 ? await alternate(routes(), agent, base, SERIAL_REQUESTS, 2, 1) : null;
  agent.destroy();

  const ratio = loaded[1].p50_ms / loaded[0].p50_ms;
  const failed = [...loaded, ...(serial ?? [])].some((r) => r.non_200 > 0);
  console.log(`\nconcurrency ${CONCURRENCY}:`);
  printTable(loaded);
  console.log(
    `\npolicy p50 / no-policy p50 = ${ratio.toFixed(2)}x   (target <= ${TARGET_RATIO}x: ` +
      `${ratio <= TARGET_RATIO ? "met" : "NOT met"})   added p50 = ` +
      `+${(loaded[1].p50_ms - loaded[0].p50_ms).toFixed(2)} ms`,
  );
  if (serial) {
    console.log(`\nconcurrency 1:`);
    printTable(serial);
    console.log(
      `\npolicy p50 / no-policy p50 = ${(serial[1].p50_ms / serial[0].p50_ms).toFixed(2)}x   added p50 = ` +
        `+${(serial[1].p50_ms - serial[0].p50_ms).toFixed(2)} ms`,
    );
  }
  const results = {
    at: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version },
    config: {
      concurrency: CONCURRENCY,
      requests_per_route: loaded[0].requests,
      rounds: ROUNDS,
      batch: BATCH.length,
      policy_domains: 2000,
    },
    routes: loaded,
    ratio_p50: round2(ratio),
    target_ratio: TARGET_RATIO,
    target_met: ratio <= TARGET_RATIO,
    unloaded: serial && { routes: serial, ratio_p50: round2(serial[1].p50_ms / serial[0].p50_ms) },
    valid: !failed,
  };
  writeFileSync(join(RESULTS_DIR, "policy.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("[bench] wrote bench/results/policy.json");
  const checked = checkRun({
    bench: "policy",
    figures: Object.fromEntries(loaded.map((r) => [`${r.route} p50 ms`, r.p50_ms])),
    ...statusCounts([...loaded, ...(serial ?? [])]),
  });
  if (failed || checked) return 1;
  return process.env.BENCH_ENFORCE === "1" && !results.target_met ? 1 : 0;
}

/** A verified account with one member and `count` email-scoped secret keys. */
async function createKeys(admin, label, count) {
  const account = (
    await admin.call("POST", "/accounts", { email: `${label}@bench.example.com`, email_verified: true, plan: "free" })
  ).data;
  const member = (
    await admin.call("POST", `/accounts/${account.id}/members`, { email: `${label}-user@bench.example.com` })
  ).data;
  const keys = [];
  for (let i = 0; i < count; i++)
    keys.push(
      (await admin.call("POST", `/accounts/${account.id}/keys/secret`, { user_id: member.user_id, scopes: ["email"] }))
        .data.key,
    );
  return keys;
}
