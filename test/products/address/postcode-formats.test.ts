/**
 * Postcode formats checked against a second source (docs/address.md, "Postcode formats"): every country with a format
 * is compared with postal-codes-js over its own test values and variants of them (a character more, one less, a digit
 * made a letter, runs of digits). Every disagreement must be one documented in
 * datasets/address/postcode-format-differences.json, in the direction documented, and every documented one
 * must still be found, so the list stays exact. The fixes made where ours was wrong are pinned below.
 */
import { describe, expect, it } from "vitest";
import differences from "../../../datasets/address/postcode-format-differences.json";
import formats from "../../../datasets/address/snapshots/postcode-formats.json";
import { canonicalPostcode, postcodeShapeValid } from "../../../src/products/address/postcodes";
import { secondFormat, secondSourceValid } from "../../postcode-second-source";

const ours = (country: string, value: string) => postcodeShapeValid(country, canonicalPostcode(country, value));

function candidates(country: string): string[] {
  const format = secondFormat(country)!;
  const values = new Set([...format.TestData.Valid, ...format.TestData.Invalid]);
  for (const v of format.TestData.Valid)
    for (const variant of [`${v}1`, v.slice(0, -1), v.replace(/\d/, "A")]) values.add(variant);
  for (let n = 2; n <= 10; n++) values.add("1234567890".slice(0, n));
  return [...values];
}

/** Per country: the values on which the two disagree, with our verdict. */
function disagreements() {
  const found: Record<string, { value: string; ours: boolean | null }[]> = {};
  for (const country of Object.keys(formats.data)) {
    if (!secondFormat(country)) continue;
    const diff = candidates(country).flatMap((value) =>
      ours(country, value) !== secondSourceValid(country, value) ? [{ value, ours: ours(country, value) }] : [],
    );
    if (diff.length) found[country] = diff;
  }
  return found;
}

describe("postcode formats against postal-codes-js", () => {
  const documented = differences.countries as Record<string, { direction: "narrower" | "wider"; why: string }>;

  it(
    "disagree only where documented, in the documented direction, and every documented difference is still " + "there",
    () => {
      const found = disagreements();
      expect(Object.keys(found).sort()).toEqual(Object.keys(documented).sort());
      for (const [country, diff] of Object.entries(found)) {
        const expected = documented[country]!.direction !== "narrower";
        expect(
          diff.filter((d) => d.ours !== expected),
          `${country}: ${documented[country]!.why}`,
        ).toEqual([]);
      }
    },
  );

  it("every country with a format is either known to the second source or documented as ours only", () => {
    const unknown = Object.keys(formats.data)
      .filter((c) => !secondFormat(c))
      .sort();
    expect(unknown).toEqual(Object.keys(differences.ours_only).sort());
  });

  it("agrees on every test value the second source ships for the countries both know, but the documented ones", () => {
    for (const country of Object.keys(formats.data)) {
      const format = secondFormat(country);
      if (!format || documented[country]) continue;
      for (const value of format.TestData.Valid) expect(ours(country, value), `${country} ${value}`).toBe(true);
      for (const value of format.TestData.Invalid) expect(ours(country, value), `${country} ${value}`).toBe(false);
    }
  });
});

describe("the fixes the comparison led to", () => {
  it.each([
    ["NL", "1945 SS", false, "PostNL never issues SA, SD, SS"],
    ["NL", "1945 AB", true, ""],
    ["MT", "ABC 123", false, "MaltaPost: three letters and four digits"],
    ["MT", "VLT 1117", true, ""],
    ["IL", "123456", false, "Israel: five or seven digits, never six"],
    ["IL", "9614303", true, ""],
    ["AR", "1425", true, "the four-digit codes beside the CPA"],
    ["AR", "C1425DBA", true, ""],
    ["PT", "1000", false, "the area alone is no postcode"],
    ["PT", "1000-001", true, ""],
    ["SA", "12345-6789", true, "Saudi Post's additional number"],
    ["VE", "1010-A", true, "IPOSTEL's letter"],
    ["SV", "1101", true, "El Salvador without CP"],
    ["NI", "11001", true, "Nicaragua's five digits"],
    ["SO", "AW 12345", true, "Somalia's region letters"],
  ])("%s %s -> %s (%s)", (country, value, valid) => {
    expect(ours(country, value)).toBe(valid);
  });

  it.each([
    ["US", "627011234", "62701-1234"],
    ["PR", "009011234", "00901-1234"],
    ["JP", "1000001", "100-0001"],
    ["PT", "1000001", "1000-001"],
    ["KY", "KY11100", "KY1-1100"],
    ["TW", "100-001", "100001"],
    ["DK", "DK-1054", "1054"],
    ["DK", "DK - 1054", "1054"],
    ["LT", "LT12345", "12345"],
    ["LU", "L-1054", "L-1054"],
    ["LU", "L 1054", "1054"],
    ["VC", "VC-0100", "VC0100"],
    ["AD", "AD100", "AD100"],
    ["FK", "FIQQ1ZZ", "FIQQ 1ZZ"],
    ["SH", "STHL1ZZ", "STHL 1ZZ"],
  ])("%s %s is spelled %s", (country, value, spelled) => {
    expect(canonicalPostcode(country, value)).toBe(spelled);
    expect(postcodeShapeValid(country, spelled)).toBe(true);
  });
});
