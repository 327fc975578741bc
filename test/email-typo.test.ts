/**
 * Unit tests of src/products/email/typo.ts, driven by the spec ("Email result", "Test addresses", "POST /api/v1/email"
 * rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import typoSnapshot from "../datasets/snapshots/typo-domains.json";
import { freeProviderDomains } from "../src/products/email/datasets";
import { checkTypo, editDistance } from "../src/products/email/typo";

const typoData = typoSnapshot.data as { targets: string[]; corrections: Record<string, string> };

describe("editDistance", () => {
  it("is 0 for identical strings", () => {
    expect(editDistance("gmail.com", "gmail.com")).toBe(0);
  });

  it("counts one substitution as one edit", () => {
    expect(editDistance("gmail.com", "gmaio.com")).toBe(1);
  });

  it("counts one insertion as one edit", () => {
    expect(editDistance("gmail.com", "gmaill.com")).toBe(1);
  });

  it("counts one deletion as one edit", () => {
    expect(editDistance("gmail.com", "gmal.com")).toBe(1);
  });

  it("counts a transposition of adjacent letters as one edit", () => {
    expect(editDistance("gmail.com", "gmial.com")).toBe(1);
    expect(editDistance("ab", "ba")).toBe(1);
  });

  it("counts two separate edits as two", () => {
    expect(editDistance("gmail.com", "gmial.con")).toBe(2);
  });

  it("is symmetric", () => {
    expect(editDistance("outlook.com", "otlook.cm")).toBe(editDistance("otlook.cm", "outlook.com"));
  });

  it("reports more than 2 when the lengths differ by more than 2", () => {
    expect(editDistance("gmail.com", "gmail.com.au")).toBeGreaterThan(2);
  });

  it("handles empty strings", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("", "ab")).toBe(2);
  });
});

describe("checkTypo", () => {
  it("gmial.com is a known typo-squat of gmail.com", () => {
    expect(checkTypo("gmial.com")).toEqual({ suggestion: "gmail.com", typoSquat: true });
  });

  it("every listed correction is reported as a typo-squat with its target", () => {
    for (const [typo, target] of Object.entries(typoData.corrections)) {
      expect(checkTypo(typo), typo).toEqual({ suggestion: target, typoSquat: true });
    }
  });

  it("a one-edit near miss that is not listed gets a suggestion but is not a typo-squat (gmaio.com)", () => {
    expect(typoData.corrections["gmaio.com"]).toBeUndefined();
    expect(typoData.targets).toContain("gmail.com");
    expect(checkTypo("gmaio.com")).toEqual({ suggestion: "gmail.com", typoSquat: false });
  });

  it("an unlisted transposition gets a suggestion but is not a typo-squat (hotmail.cmo)", () => {
    expect(typoData.corrections["hotmail.cmo"]).toBeUndefined();
    expect(checkTypo("hotmail.cmo")).toEqual({ suggestion: "hotmail.com", typoSquat: false });
  });

  it("an unlisted one-letter insertion gets a suggestion (outlokk.com -> outlook.com)", () => {
    expect(checkTypo("outlokk.com")).toEqual({ suggestion: "outlook.com", typoSquat: false });
  });

  it("gmail.com itself gives no suggestion", () => {
    expect(checkTypo("gmail.com")).toEqual({ suggestion: null, typoSquat: false });
  });

  it("mail.com (a free provider one edit from gmail.com) gives no suggestion", () => {
    expect(freeProviderDomains().has("mail.com")).toBe(true);
    expect(editDistance("mail.com", "gmail.com")).toBe(1);
    expect(checkTypo("mail.com")).toEqual({ suggestion: null, typoSquat: false });
  });

  it("outlook.com itself gives no suggestion", () => {
    expect(checkTypo("outlook.com")).toEqual({ suggestion: null, typoSquat: false });
  });

  it("no target domain of the dataset is itself flagged", () => {
    for (const target of typoData.targets) {
      expect(checkTypo(target), target).toEqual({ suggestion: null, typoSquat: false });
    }
  });

  it("a domain far from every target gives no suggestion", () => {
    expect(checkTypo("example.com")).toEqual({ suggestion: null, typoSquat: false });
  });

  it("a two-edit miss under a real TLD gives no suggestion; under no TLD at all it does", () => {
    expect(typoData.corrections["gmaiil.con"]).toBeUndefined();
    expect(checkTypo("gmaiil.co")).toEqual({ suggestion: null, typoSquat: false });
    expect(checkTypo("gmaiil.con")).toEqual({ suggestion: "gmail.com", typoSquat: false });
  });

  it("domains shorter than 6 characters get no near-miss suggestion (cs.cm, one edit from cs.com)", () => {
    expect(typoData.targets).toContain("cs.com");
    expect(typoData.corrections["cs.cm"]).toBeUndefined();
    expect(checkTypo("cs.cm")).toEqual({ suggestion: null, typoSquat: false });
  });
});
