// Benches that cannot rot: every bench is run by `npm run bench:smoke` (bench/smoke.mjs lists it), is typechecked
// (`// @ts-check` first, bench/tsconfig.json checks the files that say so) and ends on the shared check (checkRun:
// the commit, the load average, figures above zero, nothing refused or errored), which the smoke run requires.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHES } from "../bench/smoke.mjs";

const BENCH_DIR = join(import.meta.dirname, "..", "bench");
const benches = readdirSync(BENCH_DIR)
  .filter((f) => f.endsWith(".mjs") && f !== "smoke.mjs")
  .map((f) => f.replace(/\.mjs$/, ""));

describe("bench/", () => {
  it("lists every bench in bench:smoke, and no bench that is gone", () => {
    expect(Object.keys(BENCHES).sort()).toEqual(benches.sort());
  });

  it.each([...benches, "smoke"])("%s.mjs is typechecked (// @ts-check on its first line)", (name) => {
    const first = readFileSync(join(BENCH_DIR, `${name}.mjs`), "utf8").split("\n")[0];
    expect(first).toBe("// @ts-check");
  });

  it.each(benches)("%s.mjs ends on the shared check the smoke run requires", (name) => {
    expect(readFileSync(join(BENCH_DIR, `${name}.mjs`), "utf8")).toMatch(/\bcheckRun\(/);
  });

  it("every bench library file is typechecked too", () => {
    const libs = readdirSync(join(BENCH_DIR, "lib")).filter((f) => f.endsWith(".mjs"));
    for (const lib of libs)
      expect(readFileSync(join(BENCH_DIR, "lib", lib), "utf8").split("\n")[0], lib).toBe("// @ts-check");
  });
});
