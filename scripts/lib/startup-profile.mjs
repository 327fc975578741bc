// The Worker's startup CPU, as Cloudflare counts it against its startup limit: `wrangler check startup` evaluates the
// bundle's modules (the global scope) in a local workerd under the inspector's CPU profiler. Runs on this machine,
// offline, with no account. The figure is the profile's active time (samples that were not idle, garbage collection
// included), the least of a few runs: a busy neighbour only ever adds to it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWrangler } from "./local.mjs";

const MAX_FAILURES = 3;

/** Active and garbage-collection ms of one `.cpuprofile` (the arithmetic of wrangler's own summary). */
export function activeTime(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  let active = 0;
  let gc = 0;
  profile.timeDeltas.forEach((delta, i) => {
    const name = nodes.get(profile.samples[i])?.callFrame.functionName;
    if (name === "(idle)") return;
    active += delta;
    if (name === "(garbage collector)") gc += delta;
  });
  return { activeMs: active / 1000, gcMs: gc / 1000 };
}

/**
 * `runs` startup profiles of the bundle written by `wrangler deploy --dry-run --outfile <bundle>`; resolves the
 * least active time, every run's, and the profile of the least (for `topSources`).
 */
export async function measureStartup(bundle, { runs = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "startup-profile-"));
  try {
    const measured = [];
    let failures = 0;
    for (let i = 0; measured.length < runs; i++) {
      const outfile = join(dir, `startup-${i}.cpuprofile`);
      let output = "";
      try {
        await runWrangler(["check", "startup", "--worker", bundle, "--outfile", outfile], {
          output: (chunk) => (output += chunk),
        });
      } catch (err) {
        // wrangler gives the local runtime 10 s to start and evaluate; a loaded machine can miss that. Try again.
        if (++failures <= MAX_FAILURES) continue;
        process.stderr.write(output);
        throw err;
      }
      const profile = JSON.parse(readFileSync(outfile, "utf8"));
      measured.push({ ...activeTime(profile), profile });
    }
    const best = measured.reduce((a, b) => (b.activeMs < a.activeMs ? b : a));
    return { ...best, runsMs: measured.map((m) => m.activeMs) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where a source path's time goes: its npm package, or its file under src/ (durable-objects/, workers/). */
const sourceName = (source) =>
  source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ??
  source.replace(/^.*?\/(src|durable-objects|workers)\//, "$1/");

/** The original source of a bundle line: its first mapped column (indentation is not mapped). */
function sourceAt(traceMapping, map, line) {
  const { LEAST_UPPER_BOUND, originalPositionFor } = traceMapping;
  return line >= 1 ? originalPositionFor(map, { line, column: 0, bias: LEAST_UPPER_BOUND }).source : null;
}

/** Each node's self time split over the bundle lines its samples were on (a module's top level is one node). */
function selfTimeByLine(profile) {
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i] / 1000));
  const byLine = [];
  for (const node of profile.nodes) {
    const ms = self.get(node.id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (!ms || functionName === "(idle)") continue;
    if (!url) byLine.push([functionName, null, ms]);
    else if (!node.positionTicks?.length) byLine.push([null, lineNumber + 1, ms]);
    else {
      const ticks = node.positionTicks.reduce((n, t) => n + t.ticks, 0);
      for (const t of node.positionTicks) byLine.push([null, t.line, (ms * t.ticks) / ticks]);
    }
  }
  return byLine;
}

/**
 * The profile's self time by original source (package or file), through the bundle's source map, largest first:
 * what to make lazy next. Null when the source-map reader is not installed (it comes with the toolchain, not as a
 * dependency of ours).
 */
export function topSources(profile, sourceMapPath, count = 8) {
  let traceMapping;
  try {
    traceMapping = createRequire(import.meta.url)("@jridgewell/trace-mapping");
  } catch {
    return null;
  }
  const map = new traceMapping.TraceMap(JSON.parse(readFileSync(sourceMapPath, "utf8")));
  const totals = new Map();
  for (const [builtin, line, ms] of selfTimeByLine(profile)) {
    const source = builtin ? null : sourceAt(traceMapping, map, line);
    const name = builtin ?? (source ? sourceName(source) : "(unmapped: compiling, bundler helpers)");
    totals.set(name, (totals.get(name) ?? 0) + ms);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, count);
}
