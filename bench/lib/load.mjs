// @ts-check
// The closed-loop load generator of bench/overhead.mjs, generalised to any method and body: node:http over a keep-alive
// agent, `concurrency` requests in flight, latencies recorded per route; alternating blocks; a pool of secret keys that
// never uses one key a 5th time within 1.1 s (the API allows 5 requests per second per key).
import { Agent, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export const PER_KEY_PER_WINDOW = 4; // client-side budget, below the API's 5 per second
export const KEY_WINDOW_MS = 1_100;

export const round2 = (n) => Math.round(n * 100) / 100;

export const keepAliveAgent = (maxSockets) => new Agent({ keepAlive: true, maxSockets });

/**
 * One HTTP request; resolves `{status, ms, text}` once the body has been read (`text` only with `read: true`).
 * `ms` is from just before the request is written to the end of the body.
 */
export function send(
  agent,
  url,
  { method = "GET", key = null, body = undefined, headers = {}, read = false, timeoutMs = 30_000 } = {},
) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const allHeaders = {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(payload === undefined
        ? {}
        : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
      ...headers,
    };
    const t0 = performance.now();
    const req = httpRequest(url, { method, agent, headers: allHeaders }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => read && chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          ms: performance.now() - t0,
          t0,
          text: read ? Buffer.concat(chunks).toString("utf8") : null,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.end(payload);
  });
}

/**
 * One measured route: `run` drives `n` requests with `concurrency` workers; `summary` reduces what was recorded.
 * `make()` returns the request options for one request (may await, e.g. for a key from the pool).
 */
export function route(name, path, make) {
  const latencies = [];
  const statuses = {};
  let seconds = 0;
  return {
    name,
    async run(agent, base, n, concurrency, { record = true } = {}) {
      let left = n;
      const started = performance.now();
      const local = [];
      const worker = async () => {
        while (left > 0) {
          left--;
          const options = await make();
          const { status, ms } = await send(agent, `${base}${path}`, options);
          local.push(ms);
          if (record) statuses[status] = (statuses[status] ?? 0) + 1;
          else if (status !== 200) throw new Error(`${name} answered ${status} during warm-up`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const elapsed = (performance.now() - started) / 1000;
      if (record) latencies.push(...local), (seconds += elapsed);
      return { count: local.length, seconds: elapsed };
    },
    summary() {
      const sorted = Float64Array.from(latencies).sort();
      return {
        ...latencySummary(name, sorted, statuses),
        max_ms: round2(sorted[sorted.length - 1]),
        mean_ms: round2(sorted.reduce((s, v) => s + v, 0) / sorted.length),
        req_per_s: Math.round(sorted.length / seconds),
      };
    },
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function stats(values) {
  const sorted = Float64Array.from(values).sort();
  return {
    n: sorted.length,
    p50_ms: round2(percentile(sorted, 50)),
    mean_ms: round2(sorted.reduce((s, v) => s + v, 0) / sorted.length),
    min_ms: round2(sorted[0]),
    max_ms: round2(sorted[sorted.length - 1]),
  };
}

/**
 * `requests` per route in `rounds` blocks per route, order flipped every round (a b, b a, a b, ...); their summaries.
 */
export async function alternate(pair, agent, base, requests, rounds, concurrency) {
  const perBlock = Math.ceil(requests / rounds);
  for (let round = 0; round < rounds; round++) {
    for (const r of round % 2 === 0 ? pair : [...pair].reverse()) await r.run(agent, base, perBlock, concurrency);
  }
  return pair.map((r) => r.summary());
}

/** Round-robin over the keys; never a 5th use of a key within KEY_WINDOW_MS of its 4th-last use (waits instead). */
export function keyPool(keys) {
  const uses = keys.map(() => []);
  let next = 0;
  const pool = {
    size: keys.length,
    waits: 0,
    async next() {
      for (;;) {
        const now = performance.now();
        for (let i = 0; i < keys.length; i++) {
          const k = (next + i) % keys.length;
          const recent = uses[k];
          if (recent.length < PER_KEY_PER_WINDOW || now - recent[0] >= KEY_WINDOW_MS) {
            if (recent.length === PER_KEY_PER_WINDOW) recent.shift();
            recent.push(now);
            next = (k + 1) % keys.length;
            return keys[k];
          }
        }
        pool.waits++;
        await sleep(1);
      }
    },
  };
  return pool;
}

/** A verified account with a million pack credits and `keys` secret keys (every scope) of one member, as a key pool. */
export async function benchAccount(admin, keys) {
  const acct = (
    await admin.call("POST", "/accounts", { email: "bench@example.com", email_verified: true, plan: "free" })
  ).data;
  await admin.call("POST", `/accounts/${acct.id}/credits`, { bucket: "pack", amount: 1_000_000 });
  const member = (await admin.call("POST", `/accounts/${acct.id}/members`, { email: "bench@example.com" })).data;
  const made = [];
  for (let i = 0; i < keys; i++)
    made.push((await admin.call("POST", `/accounts/${acct.id}/keys/secret`, { user_id: member.user_id })).data.key);
  return keyPool(made);
}

/** Keys needed so that `ratePerSecond` spread round-robin stays within the per-key budget (with 25% headroom). */
export const keysFor = (ratePerSecond) =>
  Math.ceil((ratePerSecond * 1.25) / (PER_KEY_PER_WINDOW / (KEY_WINDOW_MS / 1000)));

export function printTable(rows) {
  /** @type {[string, (r: any) => string | number, number][]} */
  const cols = [
    ["route", (r) => r.route, 22],
    ["requests", (r) => r.requests, 9],
    ["non-200", (r) => r.non_200, 8],
    ["p50 ms", (r) => r.p50_ms.toFixed(2), 8],
    ["p90 ms", (r) => r.p90_ms.toFixed(2), 8],
    ["p99 ms", (r) => r.p99_ms.toFixed(2), 8],
    ["max ms", (r) => r.max_ms.toFixed(2), 8],
    ["req/s", (r) => r.req_per_s, 7],
  ];
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(cols[i][2]) : String(c).padStart(cols[i][2]))).join("  ");
  console.log(`\n${line(cols.map((c) => c[0]))}`);
  for (const r of rows) console.log(line(cols.map((c) => c[1](r))));
}

/**
 * A route's figures from its sorted latencies and status counts: requests, answers other than 200, p50/p90/p99.
 * @param {string} name
 * @param {Float64Array} sorted
 * @param {Record<string, number>} statuses
 */
export function latencySummary(name, sorted, statuses) {
  return {
    route: name,
    requests: sorted.length,
    non_200: sorted.length - (statuses["200"] ?? 0),
    statuses,
    p50_ms: round2(percentile(sorted, 50)),
    p90_ms: round2(percentile(sorted, 90)),
    p99_ms: round2(percentile(sorted, 99)),
  };
}
