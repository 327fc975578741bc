// `npm run deploy:check` (and CI): bundles the production Worker exactly as `npm run deploy` would, uploading nothing,
// and fails when it is over Cloudflare's 3 MB compressed limit for a Worker. Datasets that do not fit belong in D1 or
// R2 (datasets/README.md). The container image is not built (no Docker needed): --containers-rollout=none.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ASSETS_DIR, WIDGET_PATH } from "./build-widget.mjs";
import { runWrangler } from "./lib/local.mjs";

const LIMIT_BYTES = 3_000_000;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

const outDir = mkdtempSync(join(tmpdir(), "deploy-check-"));
try {
  await runWrangler(["deploy", "--dry-run", "--env", "production", "--outdir", outDir, "--containers-rollout=none"], {
    quiet: true,
  });
  // What is uploaded: the bundled modules (source maps and wrangler's README are not).
  const modules = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter(
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
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
