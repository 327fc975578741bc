// @ts-check
// `npm run bench:dashboard-weight`: what each dashboard page weighs in a browser, gzipped: the HTML plus every script
// and stylesheet it links from /dashboard/assets (app.css from the Worker, the rest from the built static assets).
//
// Builds the static assets into a temporary directory (scripts/build-widget.mjs), renders each page with sample props
// (bench/lib/dashboard-pages.tsx, bundled by esbuild for Node), gzips each part at level 9 and prints a table.
// Writes bench/results/dashboard-weight.json. No Worker, no network: it measures bytes, not time.
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { buildWidget } from "../scripts/build-widget.mjs";
import { runBench } from "./lib/harness.mjs";
import { checkRun } from "./lib/report.mjs";
import { resources } from "./lib/resources.mjs";
import { ROOT } from "../scripts/lib/local.mjs";

const held = resources();
await runBench({ main, held, timeoutMs: Number(process.env.BENCH_TIMEOUT_MS ?? 5 * 60_000) });

async function main() {
  const dir = held.tempDir("dashboard-weight-");
  const assets = join(dir, "public");
  await buildWidget({ outDir: assets });
  const bundle = join(dir, "pages.mjs");
  await build({
    entryPoints: [join(ROOT, "bench", "lib", "dashboard-pages.tsx")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    logLevel: "warning",
  });
  const { pages, styles, copyScript, localTimeScript } = await import(pathToFileURL(bundle).href);
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  // app.css, copy.js and local-time.js are served by the Worker itself; the rest are built static assets.
  const served = {
    "/dashboard/assets/app.css": styles,
    "/dashboard/assets/copy.js": copyScript,
    "/dashboard/assets/local-time.js": localTimeScript,
  };
  const asset = (path) => (served[path] ? Buffer.from(served[path]) : readFileSync(join(assets, path)));
  const rows = [];
  for (const [name, render] of Object.entries(pages)) {
    const html = `<!DOCTYPE html>${String(await render())}`;
    const linked = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    const parts = { html: gz(Buffer.from(html)), js: 0, css: 0 };
    for (const path of new Set(linked)) parts[path.endsWith(".js") ? "js" : "css"] += gz(asset(path));
    rows.push({
      page: name,
      html_gzip: parts.html,
      js_gzip: parts.js,
      css_gzip: parts.css,
      total_gzip: parts.html + parts.js + parts.css,
      assets: [...new Set(linked)],
    });
  }
  console.log("page          html    js      css     total (bytes, gzip -9)");
  for (const r of rows)
    console.log(
      `${r.page.padEnd(13)} ${String(r.html_gzip).padEnd(7)} ${String(r.js_gzip).padEnd(7)} ` +
        `${String(r.css_gzip).padEnd(7)} ${r.total_gzip}`,
    );
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench", "results", "dashboard-weight.json"),
    `${JSON.stringify({ measured_at: new Date().toISOString(), pages: rows }, null, 2)}\n`,
  );
  // A page whose HTML weighs nothing rendered nothing (its props no longer fit the page).
  return checkRun({
    bench: "dashboard-weight",
    figures: Object.fromEntries(rows.flatMap((r) => [[`${r.page} html`, r.html_gzip]])),
  });
}
