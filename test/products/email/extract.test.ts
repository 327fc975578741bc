/**
 * Unit tests of src/products/email/extract.ts, driven by the spec (verification-api.md: "Email result", "Test
 * addresses", "POST /api/v1/email" rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import { extractAddress } from "../../../src/products/email/extract";
import { parseAddress } from "../../../src/products/email/syntax";

describe("extractAddress", () => {
  it("keeps the closing bracket of an address literal, so the answer echoes what was sent", () => {
    expect(extractAddress("user@[1.2.3.4]")).toBe("user@[1.2.3.4]");
    expect(extractAddress("<user@[1.2.3.4]>.")).toBe("user@[1.2.3.4]");
  });

  it("returns a bare address unchanged", () => {
    expect(extractAddress("ann@x.com")).toBe("ann@x.com");
  });

  it("takes the address out of an unquoted display name", () => {
    expect(extractAddress("Ann Lee <ann@x.com>")).toBe("ann@x.com");
  });

  it("takes the address out of a quoted display name containing a comma", () => {
    expect(extractAddress('"Lee, Ann" <ann@x.com>')).toBe("ann@x.com");
  });

  it("takes the address out of a display name with a mailto: inside the angle brackets", () => {
    expect(extractAddress("Ann Lee <mailto:ann@x.com>")).toBe("ann@x.com");
  });

  it("strips a mailto: prefix", () => {
    expect(extractAddress("mailto:ann@x.com")).toBe("ann@x.com");
  });

  it("strips a mailto: prefix regardless of its case", () => {
    expect(extractAddress("MAILTO:ann@x.com")).toBe("ann@x.com");
  });

  it("drops the query of a mailto: link (?subject=...)", () => {
    expect(extractAddress("mailto:ann@x.com?subject=Hello%20there&body=Hi")).toBe("ann@x.com");
  });

  it("strips a spreadsheet leading apostrophe ('ann@x.com)", () => {
    expect(extractAddress("'ann@x.com")).toBe("ann@x.com");
  });

  it('strips a spreadsheet formula wrapper (="ann@x.com")', () => {
    expect(extractAddress('="ann@x.com"')).toBe("ann@x.com");
  });

  it('strips surrounding double quotes ("ann@x.com")', () => {
    expect(extractAddress('"ann@x.com"')).toBe("ann@x.com");
  });

  it("strips surrounding single quotes and backticks", () => {
    expect(extractAddress("'ann@x.com'")).toBe("ann@x.com");
    expect(extractAddress("`ann@x.com`")).toBe("ann@x.com");
  });

  it("strips a trailing full stop", () => {
    expect(extractAddress("ann@x.com.")).toBe("ann@x.com");
  });

  it("strips a run of trailing punctuation (,;)", () => {
    expect(extractAddress("ann@x.com,;")).toBe("ann@x.com");
  });

  it("strips trailing colon, exclamation and question marks", () => {
    expect(extractAddress("ann@x.com:!")).toBe("ann@x.com");
    expect(extractAddress("ann@x.com?")).toBe("ann@x.com");
  });

  it("strips surrounding angle brackets", () => {
    expect(extractAddress("<ann@x.com>")).toBe("ann@x.com");
  });

  it("strips surrounding parentheses", () => {
    expect(extractAddress("(ann@x.com)")).toBe("ann@x.com");
  });

  it("strips surrounding square brackets", () => {
    expect(extractAddress("[ann@x.com]")).toBe("ann@x.com");
  });

  it("strips surrounding curly braces", () => {
    expect(extractAddress("{ann@x.com}")).toBe("ann@x.com");
  });

  it("strips nested wrappers and trailing punctuation together", () => {
    expect(extractAddress(`("ann@x.com"),`)).toBe("ann@x.com");
  });

  it("trims surrounding whitespace, tabs and newlines", () => {
    expect(extractAddress("  \t ann@x.com \r\n")).toBe("ann@x.com");
  });

  it("removes a zero-width space (U+200B) anywhere in the input", () => {
    expect(extractAddress("\u200Bann@x\u200B.com\u200B")).toBe("ann@x.com");
  });

  it("removes a byte-order mark (U+FEFF)", () => {
    expect(extractAddress("\uFEFFann@x.com")).toBe("ann@x.com");
  });

  it("removes a soft hyphen (U+00AD) inside the address", () => {
    expect(extractAddress("an\u00ADn@x.c\u00ADom")).toBe("ann@x.com");
  });

  it("removes left-to-right and right-to-left marks (U+200E, U+200F)", () => {
    expect(extractAddress("\u200Eann@x.com\u200F")).toBe("ann@x.com");
  });

  it("removes bidi embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069)", () => {
    expect(extractAddress("\u202Aann@x.com\u202C")).toBe("ann@x.com");
    expect(extractAddress("\u202Eann@x.com\u202C")).toBe("ann@x.com");
    expect(extractAddress("\u2066ann@x.com\u2069")).toBe("ann@x.com");
  });

  it("removes a word joiner (U+2060) and a zero-width joiner (U+200D)", () => {
    expect(extractAddress("ann\u2060@x\u200D.com")).toBe("ann@x.com");
  });

  it("treats no-break spaces (U+00A0) around the address as whitespace", () => {
    expect(extractAddress("\u00A0ann@x.com\u00A0")).toBe("ann@x.com");
  });

  it("treats a no-break space between display name and angle address as whitespace", () => {
    expect(extractAddress("Ann\u00A0Lee\u00A0<ann@x.com>")).toBe("ann@x.com");
  });

  it("decodes a percent-encoded @", () => {
    expect(extractAddress("ann%40x.com")).toBe("ann@x.com");
  });

  it("decodes a percent-encoded plus tag in a mailto: link", () => {
    expect(extractAddress("mailto:ann%2Bnews@x.com")).toBe("ann+news@x.com");
  });

  it("keeps text that only looks like percent-encoding but is malformed", () => {
    // `%E0%A4%A` is a truncated UTF-8 sequence: decodeURIComponent throws and the text is kept as it is.
    expect(extractAddress("ann%E0%A4%A@x.com")).toBe("ann%E0%A4%A@x.com");
  });

  it("lowercases the domain", () => {
    expect(extractAddress("ann@X.COM")).toBe("ann@x.com");
  });

  it("keeps the case of the local part", () => {
    expect(extractAddress("Ann.Lee@Example.COM")).toBe("Ann.Lee@example.com");
  });

  it("keeps the case of the local part inside a display name and mailto:", () => {
    expect(extractAddress("Ann <mailto:Ann.Lee@Example.Com>")).toBe("Ann.Lee@example.com");
  });

  it("keeps a plus tag in the local part", () => {
    expect(extractAddress("ann+news@x.com")).toBe("ann+news@x.com");
  });

  it("lowercases only the domain after the last @ of a quoted local part containing @", () => {
    expect(extractAddress('"A@B"@X.COM')).toBe('"A@B"@x.com');
  });

  it("keeps the quotes of a quoted local part (RFC 5322 quoted-string)", () => {
    expect(extractAddress('"john smith"@example.com')).toBe('"john smith"@example.com');
  });

  it("keeps the quotes of a quoted local part inside other wrappers", () => {
    expect(extractAddress(`'"john smith"@example.com',`)).toBe('"john smith"@example.com');
    expect(extractAddress('("john smith"@example.com)')).toBe('"john smith"@example.com');
  });

  it("a quoted local part survives extraction and parses as valid syntax", () => {
    expect(parseAddress(extractAddress('  "john smith"@Example.com.'))).toEqual({
      local: '"john smith"',
      domain: "example.com",
    });
  });

  it("keeps a question mark that is part of the local part (valid atext)", () => {
    expect(extractAddress("what?now@x.com")).toBe("what?now@x.com");
  });

  it("returns the cleaned text when there is no @ at all", () => {
    expect(extractAddress("  'not an address',  ")).toBe("not an address");
  });

  it("returns an empty string for input that is only invisible characters and whitespace", () => {
    expect(extractAddress("\u200B\uFEFF \u00A0")).toBe("");
  });
});
