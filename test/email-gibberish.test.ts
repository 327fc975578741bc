/**
 * Unit tests of src/products/email/gibberish.ts, driven by the spec ("Email result", "Test addresses", "POST /api/v1/email"
 * rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import { isGibberish } from "../src/products/email/gibberish";

describe("isGibberish", () => {
  it.each(["xkqzjwpt", "qwrtzpsdfg", "a8f3k29dj4"])("flags the machine-made username %s", (local) => {
    expect(isGibberish(local)).toBe(true);
  });

  it.each(["john.smith", "christopher", "mariaelena", "support", "jean-baptiste", "john1985"])(
    "does not flag the ordinary username %s",
    (local) => {
      expect(isGibberish(local)).toBe(false);
    },
  );

  it.each(["al", "bob", "li.na", "xkqzjwp"])("does not judge usernames shorter than 8 characters (%s)", (local) => {
    expect(isGibberish(local)).toBe(false);
  });

  it("is case-insensitive", () => {
    expect(isGibberish("XKQZJWPT")).toBe(true);
    expect(isGibberish("Christopher")).toBe(false);
  });

  it("judges only the part before a plus tag", () => {
    expect(isGibberish("john+xkqzjwpt")).toBe(false);
    expect(isGibberish("xkqzjwpt+news")).toBe(true);
  });

  it("ignores dots, hyphens and underscores when judging", () => {
    expect(isGibberish("x.k.q.z-j_w.p.t")).toBe(true);
  });

  it("flags a run of six consonants even with vowels elsewhere", () => {
    expect(isGibberish("abcdfghjae")).toBe(true);
  });
});
