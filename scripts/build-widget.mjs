// Builds the browser widget (widget/src, TypeScript) into the Worker's static assets, dist/public/:
//   widget/v1/verify.js (+ .map)   the script sites embed
//   _headers                       cache and CORS headers for it
//   demo.html                      the demo sign-up form, only with WIDGET_DEMO=1 (`npm run dev` and the browser tests)
//   dashboard/assets/*.js          the dashboard's page scripts (widget/src/dashboard: passkeys, usage charts with
//                                  uPlot, bulk run progress; docs/dashboard.md) and uplot.css
//   docs/*.md                      the guides, as written in docs/
//   docs/assets/api-reference.*   the reference renderer GET /docs loads (swagger-ui-dist's bundle and sheet) and
//   docs/assets/reference-start.js the lines that start it (widget/reference/reference-start.js)
// wrangler.toml's [build] runs this before every `wrangler dev` and `wrangler deploy`; `npm run build:widget` by hand.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ASSETS_DIR = join(ROOT, "dist", "public");
/** The versioned path sites embed; a breaking change to the widget's options gets /widget/v2/. */
export const WIDGET_PATH = "/widget/v1/verify.js";
/** Where GET /docs loads its renderer from (src/surfaces/api/reference.ts names the same paths): our origin, not a
 * CDN. */
export const REFERENCE_SCRIPT_PATH = "/docs/assets/api-reference.js";
export const REFERENCE_STYLE_PATH = "/docs/assets/api-reference.css";
export const REFERENCE_START_PATH = "/docs/assets/reference-start.js";
const SWAGGER_UI = join(ROOT, "node_modules", "swagger-ui-dist");
/** The renderer's one-file browser bundle (sets window.SwaggerUIBundle), of the version package.json pins exactly. */
export const REFERENCE_SCRIPT_SOURCE = join(SWAGGER_UI, "swagger-ui-bundle.js");

// Sites load the script on every page: an hour of caching keeps fixes flowing out the same day.
const HEADERS = `/widget/*
  Cache-Control: public, max-age=3600
  Access-Control-Allow-Origin: *
  X-Content-Type-Options: nosniff
/dashboard/assets/*
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
/docs/assets/*
  Cache-Control: public, max-age=3600
  X-Content-Type-Options: nosniff
`;

/** @returns {Promise<{ file: string, bytes: number, gzipBytes: number }>} */
export async function buildWidget({ demo = process.env.WIDGET_DEMO === "1", outDir = ASSETS_DIR } = {}) {
  rmSync(outDir, { recursive: true, force: true });
  const file = join(outDir, WIDGET_PATH);
  await build({
    entryPoints: [join(ROOT, "widget", "src", "verify.ts")],
    outfile: file,
    bundle: true,
    minify: true,
    format: "iife",
    target: ["chrome100", "firefox100", "safari15"],
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
  });
  await build({
    entryPoints: ["passkeys", "usage", "bulk"].map((name) => join(ROOT, "widget", "src", "dashboard", `${name}.ts`)),
    outdir: join(outDir, "dashboard", "assets"),
    bundle: true,
    minify: true,
    format: "iife",
    target: ["chrome100", "firefox100", "safari15"],
    legalComments: "none",
    logLevel: "warning",
  });
  // The usage page's chart styles (uPlot's own sheet; the CSP allows styles from this origin only).
  copyFileSync(
    join(ROOT, "node_modules", "uplot", "dist", "uPlot.min.css"),
    join(outDir, "dashboard", "assets", "uplot.css"),
  );
  writeFileSync(join(outDir, "_headers"), HEADERS);
  if (demo) copyFileSync(join(ROOT, "widget", "demo.html"), join(outDir, "demo.html"));
  // The guides as static Markdown under /docs/ (linked from /llms.txt; /docs itself is the Worker's rendered
  // reference).
  mkdirSync(join(outDir, "docs"), { recursive: true });
  for (const name of readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")))
    copyFileSync(join(ROOT, "docs", name), join(outDir, "docs", name));
  // Served by us so the reference renders offline and without a third party (1.7 MB, 0.46 MB gzipped:
  // docs/architecture.md).
  mkdirSync(join(outDir, "docs", "assets"), { recursive: true });
  copyFileSync(REFERENCE_SCRIPT_SOURCE, join(outDir, REFERENCE_SCRIPT_PATH));
  copyFileSync(join(SWAGGER_UI, "swagger-ui.css"), join(outDir, REFERENCE_STYLE_PATH));
  copyFileSync(join(ROOT, "widget", "reference", "reference-start.js"), join(outDir, REFERENCE_START_PATH));
  const code = readFileSync(file);
  return { file, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { bytes, gzipBytes } = await buildWidget();
  console.log(
    `[widget] ${WIDGET_PATH}: ${bytes} bytes, ${gzipBytes} gzipped${
      process.env.WIDGET_DEMO === "1" ? " (+ /demo)" : ""
    }`,
  );
}
