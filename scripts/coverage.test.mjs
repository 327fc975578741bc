// What the importers record as a dataset's coverage (scripts/lib/coverage.mjs, docs/operations.md "Coverage of what
// you import"): the operator's word, else a sample's for a -sample version, else the dataset's own default; BAN
// département files are part of France.
import { describe, expect, it } from "vitest";
import { coverageArg, coverageFor, sampleCoverage } from "./lib/coverage.mjs";
import { fileCoverage } from "./import-address.mjs";

describe("coverageFor", () => {
  const fallback = { kind: "full", countries: ["GB"] };
  it(
    "takes the dataset's default for a real file, a sample's for a -sample version, and the operator's word over " +
      "both",
    () => {
      expect(coverageFor({ version: "2026-11-01", fallback })).toEqual(fallback);
      expect(coverageFor({ version: "2026-11-22-sample", fallback, countries: ["GB"] })).toEqual(
        sampleCoverage(["GB"]),
      );
      expect(
        coverageFor({
          version: "2026-11-22-sample",
          fallback,
          given: { kind: "partial", countries: ["GB"], note: "England" },
        }),
      ).toEqual({ kind: "partial", countries: ["GB"], note: "England" });
      expect(() => coverageFor({ version: "2026-11-01", fallback, given: { kind: "most" } })).toThrow(
        /--coverage must be one of full, partial, sample/,
      );
    },
  );

  it("reads --coverage, --countries and --coverage-note", () => {
    const options = {};
    const args = ["--coverage", "partial", "--countries", "gb, je", "--coverage-note", "part 1 of 7"];
    for (let i = 0; i < args.length; i++) expect(coverageArg(options, args[i], () => args[++i])).toBe(true);
    expect(options.coverage).toEqual({ kind: "partial", countries: ["GB", "JE"], note: "part 1 of 7" });
    expect(coverageArg(options, "--version", () => "x")).toBe(false);
  });
});

describe("fileCoverage (address importer)", () => {
  it("records the whole BAN as full, département files as partial naming them, other datasets as declared", () => {
    expect(fileCoverage("fr-ban", ["/data/adresses-france.csv"])).toMatchObject({ kind: "full", countries: ["FR"] });
    expect(fileCoverage("fr-ban", ["/data/adresses-92.csv", "/data/adresses-75.csv", "/data/adresses-2A.csv"])).toEqual(
      {
        kind: "partial",
        countries: ["FR"],
        note: "BAN addresses of départements 2A, 75, 92 only.",
      },
    );
    expect(fileCoverage("fr-ban", ["-"])).toEqual({
      kind: "partial",
      countries: ["FR"],
      note: "BAN addresses of the files loaded only.",
    });
    expect(fileCoverage("uk-onspd", ["ONSPD_FEB_2026_UK.csv"])).toEqual({
      kind: "full",
      countries: ["GB", "GG", "IM", "JE"],
    });
    expect(fileCoverage("de-postcodes", [])).toMatchObject({ kind: "partial", countries: ["DE"] });
  });
});
