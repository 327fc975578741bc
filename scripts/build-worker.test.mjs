// The production Worker's modules (scripts/build-worker.mjs): what loads on first use stays out of the modules every
// isolate evaluates at startup, and the long domain lists travel as Text modules (docs/architecture.md, "Cold start").
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorker } from "./build-worker.mjs";

const outdir = mkdtempSync(join(tmpdir(), "build-worker-"));
let outputs;

/** Inputs of the modules `index.js` imports statically, transitively: what every isolate compiles and runs. */
function startupInputs() {
  const byName = new Map(Object.entries(outputs).map(([path, output]) => [basename(path), output]));
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const i of byName.get(name)?.imports ?? [])
      if (i.kind === "import-statement" && !i.external) visit(basename(i.path));
  };
  visit("index.js");
  return [...seen].flatMap((name) => Object.keys(byName.get(name)?.inputs ?? {}));
}

beforeAll(async () => {
  ({ outputs } = await buildWorker(outdir));
}, 120_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("the production Worker's modules", () => {
  it("serve no test-only product: src/products/build-products.ts is empty, nothing under test/ is built", () => {
    const all = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
    expect(all).toContain("src/products/build-products.ts");
    expect(all.filter((f) => f.startsWith("test/") || f.includes("specimen"))).toEqual([]);
  });

  it("keep the dashboard, payments, passkeys, the tool protocol and mimetext out of startup", () => {
    const inputs = startupInputs();
    expect(inputs.some((f) => f.startsWith("src/surfaces/api/"))).toBe(true);
    for (const lazy of [
      /node_modules\/stripe\//,
      /node_modules\/@simplewebauthn\//,
      /node_modules\/@modelcontextprotocol\//,
      /node_modules\/ajv\//,
      /node_modules\/mimetext\//,
      // The mail links' pages (src/surfaces/api/mail-links.ts) share the dashboard's layout; the dashboard itself is
      // lazy.
      /^src\/surfaces\/dashboard\/(?!pages\/)/,
      /^src\/surfaces\/mcp\//,
    ])
      expect(inputs.filter((f) => lazy.test(f))).toEqual([]);
    // Each of them is in the build all the same, in a module loaded on first use.
    const all = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
    for (const name of ["stripe", "@modelcontextprotocol/sdk", "mimetext"])
      expect(all.some((f) => f.includes(`node_modules/${name}/`))).toBe(true);
  });

  it("ship the disposable and free-provider lists as Text modules, not as JavaScript", () => {
    const snapshot = (name) => readFileSync(join("datasets", "snapshots", `${name}.json`), "utf8");
    for (const name of ["disposable-domains", "free-provider-domains"]) {
      expect(readFileSync(join(outdir, `${name}.txt`), "utf8")).toBe(snapshot(name));
      const importers = Object.values(outputs).filter((o) => o.imports?.some((i) => i.path === `./${name}.txt`));
      expect(importers).toHaveLength(1);
      expect(Object.keys(outputs).some((path) => path.endsWith(".json"))).toBe(false);
    }
    expect(existsSync(join(outdir, "index.js"))).toBe(true);
  });
});
