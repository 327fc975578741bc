// The Worker's startup CPU, as Cloudflare counts it against its startup limit: `wrangler check startup` evaluates the
// bundle's modules (the global scope) in a local workerd under the inspector's CPU profiler. Runs on this machine,
// offline, with no account. The figure is the profile's active time (samples that were not idle, garbage collection
// included), the least of a few runs: a busy neighbour only ever adds to it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
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

/**
 * Each node's self time at the start of its function, `[builtin name, module file, line, column, ms]`: the modules are
 * minified (a few long lines), so a function's own position is what the source map can place.
 */
function selfTimeByFunction(profile) {
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i] / 1000));
  const rows = [];
  for (const node of profile.nodes) {
    const ms = self.get(node.id);
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    if (!ms || functionName === "(idle)") continue;
    rows.push(url ? [null, basename(url), lineNumber + 1, columnNumber, ms] : [functionName, null, 0, 0, ms]);
  }
  return rows;
}

/**
 * The profile's self time by original source (package or file), through each module's source map (`<module>.map` in
 * `mapDir`), largest first: what to make lazy next. A module's top level (evaluating it, compiling what it calls) is
 * counted as `(top level of <module>)`. Null when the source-map reader is not installed (it comes with the
 * toolchain, not as a dependency of ours).
 */
export function topSources(profile, mapDir, count = 8) {
  let traceMapping;
  try {
    traceMapping = createRequire(import.meta.url)("@jridgewell/trace-mapping");
  } catch {
    return null;
  }
  const maps = new Map();
  const mapOf = (module) => {
    if (!maps.has(module)) {
      const path = join(mapDir, `${module}.map`);
      maps.set(module, existsSync(path) ? new traceMapping.TraceMap(JSON.parse(readFileSync(path, "utf8"))) : null);
    }
    return maps.get(module);
  };
  const totals = new Map();
  for (const [builtin, module, line, column, ms] of selfTimeByFunction(profile)) {
    let name = builtin;
    if (!name && line < 1) name = `(top level of ${module})`;
    if (!name) {
      const map = mapOf(module);
      const source = map && traceMapping.originalPositionFor(map, { line, column }).source;
      name = source ? sourceName(source) : "(unmapped: bundler helpers)";
    }
    totals.set(name, (totals.get(name) ?? 0) + ms);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, count);
}
