/** A refreshed generation's coverage (src/engines/datasets/earned.ts): `full` is earned at its floor. */
import { describe, expect, it } from "vitest";
import { earnedCoverage } from "../../../src/engines/datasets/earned";

const floor = { records: 2_000_000, basis: "GLEIF's figures" };

describe("earnedCoverage", () => {
  it("keeps a declared full coverage from the floor up", () => {
    const declared = { kind: "full" as const, countries: ["GB"], note: "whole file" };
    expect(earnedCoverage(declared, 2_000_000, floor)).toEqual({ coverage: declared, shortfall: null });
  });

  it("records a file short of the floor as partial, keeping its countries, and says why", () => {
    const declared = { kind: "full" as const, countries: ["GB"], note: "whole file" };
    const shortfall = "156 rows, under the 2,000,000 of a complete file (GLEIF's figures): recorded as partial";
    expect(earnedCoverage(declared, 156, floor)).toEqual({
      coverage: { kind: "partial", countries: ["GB"], note: shortfall },
      shortfall,
    });
  });

  it("never earns full without a floor, and leaves partial or sample declarations as they are", () => {
    expect(earnedCoverage({ kind: "full" }, 10_000_000, null).coverage.kind).toBe("partial");
    const partial = { kind: "partial" as const, note: "not every VPN" };
    expect(earnedCoverage(partial, 10, null)).toEqual({ coverage: partial, shortfall: null });
    expect(earnedCoverage({ kind: "sample" }, 10, floor)).toEqual({ coverage: { kind: "sample" }, shortfall: null });
  });
});
