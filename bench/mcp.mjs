// @ts-check
// `npm run bench:mcp`: the round trip of one tool call over the tool protocol against the same HTTP call, same run.
//
// Starts the Worker the way the other benchmarks do (wrangler dev on a fresh local database, frozen bundle), makes one
// account with a pool of secret keys (5 requests a second per key), connects one SDK client (@modelcontextprotocol/sdk,
// Streamable HTTP, the global fetch) per key, lists the tools, then measures one request at a time, in BENCH_ROUNDS (4)
// interleaved blocks, BENCH_REQUESTS (200) of each:
//
//   verify_email   tools/call {"email": "deliverable@service.test"}  vs  POST /api/v1/email with the same body
//   get_account    tools/call {}                                       vs  GET /api/v1/account
//
// The test address answers from the canned answers (no DNS, no SMTP, no credits) through the whole paid walk, so what
// differs is the protocol: JSON-RPC, a server per request (stateless), and the tool's in-process call into the API.
// Writes bench/results/mcp.json (wrangler output in bench/results/mcp-wrangler.log). Exits 1 on any refused call.
// LOCAL_PORT_RANGE (scripts/lib/local.mjs) keeps wrangler's ports in a range. Bounded by BENCH_TIMEOUT_MS (10 min).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT, adminClient, requireNode22 } from "../scripts/lib/local.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun, size } from "./lib/report.mjs";
import { benchAccount, percentile, round2, stats } from "./lib/load.mjs";
import { resources } from "./lib/resources.mjs";
import { startWorker } from "./lib/stack.mjs";

requireNode22();

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const REQUESTS = size("BENCH_REQUESTS", 200, 8);
const ROUNDS = size("BENCH_ROUNDS", 4, 2);
const KEYS = size("BENCH_KEYS", 12, 4);
const TIMEOUT_MS = num("BENCH_TIMEOUT_MS", 10 * 60_000);
const ADMIN_TOKEN = "bench-admin-token";
const RESULTS_DIR = join(ROOT, "bench", "results");
const TEST_ADDRESS = "deliverable@service.test";

const held = resources();

async function connect(base, key) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  held.closer(client);
  return client;
}

/** One measured call: resolves its wall time in ms, throws on anything but a success. */
async function timed(run) {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function main() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { base } = await startWorker({
    held,
    dir: held.tempDir("bench-mcp-"),
    vars: { ADMIN_TOKEN },
    log: "mcp-wrangler.log",
    frozen: process.env.BENCH_FROZEN !== "0",
    logLevel: "warn",
  });
  const admin = adminClient(base, ADMIN_TOKEN);
  const pool = await benchAccount(admin, KEYS);
  const keys = [];
  for (let i = 0; i < pool.size; i++) keys.push(await pool.next());
  const clients = new Map();
  for (const key of keys) clients.set(key, await connect(base, key));
  const { tools } = await clients.get(keys[0]).listTools();
  console.log(`[bench] ${tools.length} tools: ${tools.map((t) => t.name).join(", ")}`);

  const http = async (key, method, path, body) => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const envelope = await res.json();
    if (!envelope.success) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(envelope.error)}`);
  };
  const tool = async (key, name, args) => {
    const result = await clients.get(key).callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} -> ${JSON.stringify(result.structuredContent)}`);
  };
  const pairs = {
    verify_email: {
      tool: (key) => tool(key, "verify_email", { email: TEST_ADDRESS }),
      http: (key) => http(key, "POST", "/api/v1/email", { email: TEST_ADDRESS }),
    },
    get_account: { tool: (key) => tool(key, "get_account", {}), http: (key) => http(key, "GET", "/api/v1/account") },
  };
  const samples = Object.fromEntries(
    Object.keys(pairs).flatMap((name) => [
      [`${name} tool`, []],
      [`${name} http`, []],
    ]),
  );
  // Warm-up: every key once on every path, so no cold key row or account object is measured.
  for (const pair of Object.values(pairs))
    for (const side of ["tool", "http"]) for (let i = 0; i < keys.length; i++) await pair[side](await pool.next());
  const perBlock = Math.ceil(REQUESTS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, pair] of Object.entries(pairs)) {
      const order = round % 2 === 0 ? ["tool", "http"] : ["http", "tool"];
      for (const side of order)
        for (let i = 0; i < perBlock; i++)
          samples[`${name} ${side}`].push(await timed(async () => pair[side](await pool.next())));
    }
  }
  const rows = Object.entries(samples).map(([route, values]) => {
    const sorted = Float64Array.from(values).sort();
    return { route, ...stats(values), p90_ms: round2(percentile(sorted, 90)), p99_ms: round2(percentile(sorted, 99)) };
  });
  console.log("\nroute                    requests   p50 ms   p90 ms   p99 ms");
  for (const r of rows)
    console.log(
      `${r.route.padEnd(24)} ${String(r.n).padStart(8)} ${r.p50_ms.toFixed(2).padStart(8)} ` +
        `${r.p90_ms.toFixed(2).padStart(8)} ${r.p99_ms.toFixed(2).padStart(8)}`,
    );
  const added = Object.keys(pairs).map((name) => {
    const [t, h] = [rows.find((r) => r.route === `${name} tool`), rows.find((r) => r.route === `${name} http`)];
    return {
      tool: name,
      tool_p50_ms: round2(t.p50_ms),
      http_p50_ms: round2(h.p50_ms),
      added_p50_ms: round2(t.p50_ms - h.p50_ms),
      ratio_p50: round2(t.p50_ms / h.p50_ms),
    };
  });
  for (const a of added)
    console.log(
      `[bench] ${a.tool}: tool call p50 ${a.tool_p50_ms} ms vs HTTP ${a.http_p50_ms} ms (+${a.added_p50_ms} ms, ` +
        `x${a.ratio_p50})`,
    );
  const result = {
    at: new Date().toISOString(),
    cpus: availableParallelism(),
    tools: tools.length,
    tool_names: tools.map((t) => t.name),
    rows,
    added,
    key_waits: pool.waits,
  };
  writeFileSync(join(RESULTS_DIR, "mcp.json"), JSON.stringify(result, null, 2));
  console.log("[bench] wrote bench/results/mcp.json");
  // A call that failed threw above (the run stops there); every figure must be a time.
  return checkRun({ bench: "mcp", figures: Object.fromEntries(rows.map((r) => [`${r.route} p50 ms`, r.p50_ms])) });
}

await runBench({ main, held, timeoutMs: TIMEOUT_MS, logHint: "wrangler output: bench/results/mcp-wrangler.log" });
