import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { customerLimits, KNOWN_DEFECTS } from "./hops";

/**
 * Generated from the table (hops.ts): one case per customer limit and hop. A hop takes what the customer limit lets
 * through, or splits it across calls of at most its ceiling. Runs in Node (the node project), where the sidecar's
 * modules, which define half the ceilings, load as they do in production.
 */
const table = customerLimits();
const cases = table.flatMap((row) =>
  row.hops.map((hop) => ({ ...hop, limit: row.limit, customerMax: row.customerMax })),
);

describe("every internal hop takes what a customer may send", () => {
  it.each(cases)("$limit ($customerMax) through $name: ceiling $ceiling $unit, load $load", (hop) => {
    expect(Number.isFinite(hop.load), `${hop.name}: the load has no bound`).toBe(true);
    expect(hop.ceiling).toBeGreaterThan(0);
    // A known defect (KNOWN_DEFECTS) must still be one: lifting it fails here until its line goes.
    if (hop.defect)
      expect(hop.load, `lifted? then drop it from KNOWN_DEFECTS: ${hop.defect}`).toBeGreaterThan(hop.ceiling);
    else if (!hop.chunked)
      expect(hop.load, `${hop.name} (${hop.where}) would cut the request short`).toBeLessThanOrEqual(hop.ceiling);
  });
});

describe("the table", () => {
  it("names every known defect on a hop it has", () => {
    const names = new Set(table.flatMap((row) => row.hops.map((hop) => `${row.limit} › ${hop.name}`)));
    for (const name of Object.keys(KNOWN_DEFECTS)) expect(names, name).toContain(name);
  });

  it("links tests that exist: each named test is in its file (customer-limits.test.ts names its own per row)", () => {
    for (const [file, name] of table.flatMap((row) => row.tests.map((test) => test.split(" › ")))) {
      const source = readFileSync(file!, "utf8");
      if (!file!.endsWith("customer-limits.test.ts")) expect(source, file).toContain(name);
    }
  });

  it("names every limit once, each with its hops", () => {
    expect(new Set(table.map((row) => row.limit)).size).toBe(table.length);
    for (const row of table) expect(row.hops.length, row.limit).toBeGreaterThan(0);
  });
});
