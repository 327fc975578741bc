// The project's TypeScript sources as parsed modules, for the structural checks (import circles, parameter counts).
// oxc-parser parses TypeScript directly (typescript 7 ships no JavaScript compiler API); it comes with vitest's
// bundler, rolldown.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { parseSync } from "oxc-parser";

/** The roots whose files make the Worker: the app, its Durable Objects and its queue and cron jobs. */
export const ROOTS = ["src", "durable-objects", "workers"];

/** Tracked .ts/.tsx files under the roots (tests and declaration files left out). */
export function sourceFiles(roots = ROOTS) {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", ...roots], {
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts") && !/\.test\.tsx?$/.test(f) && existsSync(f));
}

export function parse(file) {
  return parseSync(file, readFileSync(file, "utf8"));
}

/** A relative specifier as the tracked file it names (`.js` written for `.ts`, a folder's index), else null. */
export function resolveImport(from, specifier) {
  if (!specifier.startsWith(".")) return null;
  const base = normalize(join(dirname(from), specifier)).replace(/\.js$/, "");
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((c) => /\.tsx?$/.test(c) && existsSync(c)) ?? null;
}
