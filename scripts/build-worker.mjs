// Builds the production Worker into dist/worker/ as separate modules (wrangler.toml's [env.production] uploads them
// as they are, `no_bundle`): esbuild with code splitting, so what is only `import()`ed on first use (the dashboard with
// Stripe and passkeys, the tool protocol with the MCP SDK and Ajv, mimetext) is its own module, compiled only when
// asked for, and the modules every isolate evaluates are plain ES modules. In one bundle esbuild has to wrap every
// module reachable from a dynamic import in a lazily compiled function, which costs startup what deferring saves
// (docs/architecture.md, "Cold start"). The options are wrangler's own (target, conditions, names kept, minified).
// `import text from "x.json?raw"` (typed by `npm run types` from wrangler.toml's `rules`) becomes a Text module
// beside them, as in wrangler's bundle.
// Run by `npm run deploy` and `npm run deploy:check` through [env.production.build]; `wrangler dev` and the tests
// run the sources.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `?raw` imports: the file is copied beside the modules as `<name>.txt` (a Text module) and imported from there. */
const textModules = (outdir) => ({
  name: "text-modules",
  setup(b) {
    b.onResolve({ filter: /\?raw$/ }, (args) => {
      const file = resolve(args.resolveDir, args.path.slice(0, -"?raw".length));
      const name = `${basename(file).replace(/\.[^.]+$/, "")}.txt`;
      copyFileSync(file, join(outdir, name));
      return { path: `./${name}`, external: true };
    });
  },
});

/** Builds the Worker's modules into `outdir` (emptied first); resolves esbuild's metafile. */
export async function buildWorker(outdir = join(ROOT, "dist", "worker")) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["src/index.ts"],
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    // Every chunk sits beside index.js, so the Text modules' `./name.txt` resolves from any of them.
    chunkNames: "chunk-[hash]",
    target: "es2024",
    supported: { "import-source": true, using: true },
    conditions: ["workerd", "worker", "browser"],
    platform: "browser",
    external: ["node:*", "cloudflare:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "global.process.env.NODE_ENV": '"production"',
      "globalThis.process.env.NODE_ENV": '"production"',
      "navigator.userAgent": '"Cloudflare-Workers"',
    },
    loader: { ".js": "jsx", ".mjs": "jsx", ".cjs": "jsx" },
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    minify: true,
    keepNames: true,
    sourcemap: true,
    legalComments: "none",
    logLevel: "warning",
    plugins: [textModules(outdir)],
    metafile: true,
  });
  return result.metafile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildWorker();
