// @ts-check
// The Worker's own CPU per request, from the inspector's sampling profiler of `wrangler dev` (the --inspector-port
// that startLocalWorker opens): profile a block of requests of one route, then divide the profile's active time (every
// sample that was not idle, garbage collection included) by the requests. Wall-clock sampling: on a machine busy
// with other work a descheduled thread still counts, so compare routes measured in the same run, not across runs.
import { activeTime } from "../../scripts/lib/startup-profile.mjs";

const SAMPLING_INTERVAL_US = 100;

/** A DevTools-protocol session with the Worker's isolate (the inspector's first target). */
export async function connectProfiler(inspector) {
  const targets = await (await fetch(`http://${inspector}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target) throw new Error(`no inspector target at ${inspector}`);
  // wrangler's inspector proxy turns away a client with neither an Origin nor the DevTools' one (Node's WebSocket
  // sends a User-Agent but no Origin); `headers` is Node's (undici's) extension of the WebSocket constructor.
  const socket = new WebSocket(
    target.webSocketDebuggerUrl,
    /** @type {any} */ ({ headers: { Origin: "http://localhost" } }),
  );
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let id = 0;
  const pending = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${message.error.message} (inspector)`));
    else waiting.resolve(message.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  return {
    /** Runs `work` under the profiler; resolves its result and the profile. */
    async profile(work) {
      await send("Profiler.start");
      const result = await work();
      const { profile } = await send("Profiler.stop");
      return { result, profile };
    },
    close: () => socket.close(),
  };
}

/** Mean CPU ms per request of a profiled block of `requests` requests, and its garbage-collection part. */
export function cpuPerRequest(profile, requests) {
  const { activeMs, gcMs } = activeTime(profile);
  return { cpu_ms: round3(activeMs / requests), gc_ms: round3(gcMs / requests), requests };
}

/**
 * The heaviest functions of a profile by self time, as `name file:line` with ms per request: where a route's CPU
 * goes (bench/results/ keeps the whole profile for DevTools).
 */
export function topFunctions(profile, requests, count = 12) {
  const self = new Map();
  profile.samples.forEach((node, i) => self.set(node, (self.get(node) ?? 0) + profile.timeDeltas[i] / 1000));
  const byFrame = new Map();
  for (const node of profile.nodes) {
    const ms = self.get(node.id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (!ms || functionName === "(idle)") continue;
    const where = url ? ` ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}` : "";
    const key = `${functionName || "(anonymous)"}${where}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + ms);
  }
  return [...byFrame]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, ms]) => ({ frame, ms_per_request: round3(ms / requests) }));
}

const round3 = (n) => Math.round(n * 1000) / 1000;

/**
 * Profiles `requests` requests of each route (bench/lib/load.mjs routes, unrecorded) at `concurrency`, one profile per
 * route, each written to `dir/<label>.cpuprofile`; resolves `{route name: cpuPerRequest + top functions}`.
 */
export async function profileRoutes(profiler, routes, { agent, base, requests, concurrency, save }) {
  const figures = {};
  for (const r of routes) {
    const { profile } = await profiler.profile(() => r.run(agent, base, requests, concurrency, { record: false }));
    save(`${r.name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-c${concurrency}.cpuprofile`, JSON.stringify(profile));
    figures[r.name] = { ...cpuPerRequest(profile, requests), top: topFunctions(profile, requests) };
  }
  return figures;
}

/** One line per route and phase: Worker CPU per request and its ratio to the first (trivial) route's. */
export function printCpu(phases) {
  console.log(
    "\nWorker CPU per request (the inspector's profile of wrangler dev's isolate, Durable Objects included):",
  );
  for (const { concurrency, cpu } of phases) {
    if (!cpu) continue;
    const [floor] = Object.values(cpu);
    for (const [name, r] of Object.entries(cpu)) {
      const ratio = floor.cpu_ms > 0 ? ` (${(r.cpu_ms / floor.cpu_ms).toFixed(1)}x the floor)` : "";
      console.log(
        `  ${`${name} (c=${concurrency})`.padEnd(30)} ${r.cpu_ms.toFixed(3)} ms` +
          `${ratio}, of which GC ${r.gc_ms.toFixed(3)} ms; over ${r.requests} requests`,
      );
    }
  }
}
