// `npm run deploy:check` (and CI): bundles the production Worker exactly as `npm run deploy` would, uploading nothing,
// and fails when it is over Cloudflare's 3 MB compressed limit for a Worker. Datasets that do not fit belong in D1 or
// R2 (datasets/README.md). The container image is not built (no Docker needed): --containers-rollout=none.
// Then measures the bundle's startup CPU (scripts/lib/startup-profile.mjs) and fails above STARTUP_BUDGET_MS, a budget
// well inside Cloudflare's 1 s limit on a Worker's startup (docs/architecture.md, "Cold start").
// DEPLOY_CHECK_STARTUP_RUNS sets how many profiles it takes the least of (3; 0 skips the measurement).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { ASSETS_DIR, WIDGET_PATH } from "./build-widget.mjs";
import { runWrangler } from "./lib/local.mjs";
import { measureStartup, topSources } from "./lib/startup-profile.mjs";

const LIMIT_BYTES = 3_000_000;
const WORKER_MAPS = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "worker");
// Startup CPU: Cloudflare refuses a Worker whose global scope takes over 1 s; this budget keeps the Worker far inside
// that on this (slower, shared) machine, so a new eager module is caught long before the platform would.
const STARTUP_BUDGET_MS = 150;
const STARTUP_RUNS = Number(process.env.DEPLOY_CHECK_STARTUP_RUNS ?? 3);
const BUSY_LOAD_PER_CORE = 2;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

const outDir = mkdtempSync(join(tmpdir(), "deploy-check-"));
try {
  const bundleDir = join(outDir, "bundle");
  const upload = join(outDir, "worker.bundle");
  const dryRun = ["deploy", "--dry-run", "--env", "production", "--containers-rollout=none"];
  await runWrangler([...dryRun, "--outdir", bundleDir, "--outfile", upload], { quiet: true });
  // What is uploaded: the bundled modules (source maps and wrangler's README are not).
  const modules = readdirSync(bundleDir, { recursive: true, withFileTypes: true }).filter(
    (f) => f.isFile() && !/\.map$|README\.md$/.test(f.name),
  );
  let raw = 0;
  let gzipped = 0;
  for (const file of modules) {
    const bytes = readFileSync(join(file.parentPath, file.name));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  // The dry run's [build] step has just built the widget into the static assets.
  const widget = readFileSync(join(ASSETS_DIR, WIDGET_PATH));
  console.log(
    `[deploy:check] production Worker: ${modules.length} module(s), ${kib(raw)}, ${kib(gzipped)} gzipped (limit 3 MB ` +
      `= ${kib(LIMIT_BYTES)})`,
  );
  console.log(
    `[deploy:check] widget ${WIDGET_PATH}: ${widget.length} bytes, ${gzipSync(widget, { level: 9 }).length} gzipped ` +
      `(a static asset, not in the bundle)`,
  );
  if (gzipped > LIMIT_BYTES) {
    console.error(`[deploy:check] the bundle is over the limit: move a dataset to D1 or R2`);
    process.exitCode = 1;
  }
  // The modules' source maps stay where scripts/build-worker.mjs wrote them (they are not uploaded).
  if (STARTUP_RUNS > 0) await checkStartup(upload, WORKER_MAPS);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

/** Prints the startup CPU (least of STARTUP_RUNS profiles) and where it goes; over the budget fails the check. */
async function checkStartup(upload, mapDir) {
  const startup = await measureStartup(upload, { runs: STARTUP_RUNS });
  const runs = startup.runsMs.map((ms) => ms.toFixed(0)).join(", ");
  console.log(
    `[deploy:check] startup: ${startup.activeMs.toFixed(1)} ms of CPU (${startup.gcMs.toFixed(1)} ms garbage ` +
      `collection), least of ${STARTUP_RUNS} local profiles (${runs} ms); budget ${STARTUP_BUDGET_MS} ms, ` +
      `Cloudflare's limit 1,000 ms; load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
  );
  const top = topSources(startup.profile, mapDir);
  if (top) console.log(`[deploy:check] startup by source: ${top.map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(", ")}`);
  if (startup.activeMs <= STARTUP_BUDGET_MS) return;
  // The profiler samples wall-clock time: on a machine running several times its cores' worth of other work, the
  // figure is mostly waiting for a core, so it is reported but does not fail the check there.
  const load = loadavg()[0] / availableParallelism();
  if (load > BUSY_LOAD_PER_CORE) {
    console.warn(
      `[deploy:check] startup is over its budget, but this machine is busy (load ${load.toFixed(1)} per core): ` +
        `run again on an idle one`,
    );
    return;
  }
  console.error(
    `[deploy:check] startup is over its budget: load what only some routes need on first use (src/http/lazy-app.ts)`,
  );
  process.exitCode = 1;
}
