/**
 * Unit tests for the email product's pure functions, driven by the spec (/work/shared/spec/verification-api.md:
 * "Email result", "Test addresses", "POST /api/v1/email" rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import rulesSnapshot from "../../../datasets/snapshots/provider-username-rules.json";
import testSnapshot from "../../../datasets/snapshots/test-addresses.json";
import typoSnapshot from "../../../datasets/snapshots/typo-domains.json";
import { freeProviderDomains } from "../../../src/products/email/datasets";
import { extractAddress } from "../../../src/products/email/extract";
import { isGibberish } from "../../../src/products/email/gibberish";
import { mailboxConfidence, riskComponents, riskLevel, riskScore, round2, type ScoreInputs } from "../../../src/products/email/score";
import { parseAddress, toAsciiHostname } from "../../../src/products/email/syntax";
import { cannedAnswer } from "../../../src/products/email/test-addresses";
import { checkTypo, editDistance } from "../../../src/products/email/typo";
import { normalizeAddress } from "../../../src/products/email/username";

const typoData = typoSnapshot.data as { targets: string[]; corrections: Record<string, string> };
const rules = rulesSnapshot.data as { provider: string; domains: string[] }[];
const testData = testSnapshot.data as { domain: string; local_parts: string[] };

// ---------------------------------------------------------------------------------------------------------------------
// extract.ts
// ---------------------------------------------------------------------------------------------------------------------

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
    expect(parseAddress(extractAddress('  "john smith"@Example.com.'))).toEqual({ local: '"john smith"', domain: "example.com" });
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

// ---------------------------------------------------------------------------------------------------------------------
// syntax.ts
// ---------------------------------------------------------------------------------------------------------------------

/** An address of exactly `total` octets with a 64-octet local part and a valid multi-label domain. */
function addressOfLength(total: number): string {
  const local = "l".repeat(64);
  const domainLength = total - local.length - 1;
  const labels: string[] = [];
  let remaining = domainLength - 4; // room for ".com"
  while (remaining > 0) {
    const take = Math.min(63, remaining);
    labels.push("a".repeat(take));
    remaining -= take + 1;
  }
  let domain = `${labels.join(".")}.com`;
  // The greedy split may overshoot by one character when the last separator does not fit; trim to the exact length.
  while (domain.length > domainLength) domain = domain.slice(1);
  return `${local}@${domain}`;
}

describe("parseAddress", () => {
  it("accepts a simple dot-atom address and splits it at the @", () => {
    expect(parseAddress("john.smith@example.com")).toEqual({ local: "john.smith", domain: "example.com" });
  });

  it("accepts every RFC 5322 atext special character in the local part", () => {
    const local = "a!#$%&'*+/=?^_`{|}~-z";
    expect(parseAddress(`${local}@example.com`)).toEqual({ local, domain: "example.com" });
  });

  it("accepts a plus tag in the local part", () => {
    expect(parseAddress("john+news@example.com")).toEqual({ local: "john+news", domain: "example.com" });
  });

  it("accepts a quoted local part containing a space", () => {
    expect(parseAddress('"john smith"@example.com')).toEqual({ local: '"john smith"', domain: "example.com" });
  });

  it("accepts a quoted local part containing consecutive dots", () => {
    expect(parseAddress('"john..smith"@example.com')).toEqual({ local: '"john..smith"', domain: "example.com" });
  });

  it("accepts a quoted local part with an escaped quote", () => {
    expect(parseAddress('"a\\"b"@example.com')).toEqual({ local: '"a\\"b"', domain: "example.com" });
  });

  it("accepts a quoted local part containing an @", () => {
    expect(parseAddress('"a@b"@example.com')).toEqual({ local: '"a@b"', domain: "example.com" });
  });

  it("accepts an internationalised (RFC 6532) local part", () => {
    expect(parseAddress("josé@example.com")).toEqual({ local: "josé", domain: "example.com" });
  });

  it("converts an IDN domain to punycode (user@bücher.de -> xn--bcher-kva.de)", () => {
    expect(parseAddress("user@bücher.de")).toEqual({ local: "user", domain: "xn--bcher-kva.de" });
  });

  it("lowercases the domain but keeps the local part's case", () => {
    expect(parseAddress("John.Smith@Example.COM")).toEqual({ local: "John.Smith", domain: "example.com" });
  });

  it("accepts a subdomain with digits and inner hyphens", () => {
    expect(parseAddress("a@mail-1.my-host2.co.uk")).toEqual({ local: "a", domain: "mail-1.my-host2.co.uk" });
  });

  it("rejects consecutive dots in the local part", () => {
    expect(parseAddress("john..smith@example.com")).toBeNull();
  });

  it("rejects a leading dot in the local part", () => {
    expect(parseAddress(".john@example.com")).toBeNull();
  });

  it("rejects a trailing dot in the local part", () => {
    expect(parseAddress("john.@example.com")).toBeNull();
  });

  it("rejects an address without an @", () => {
    expect(parseAddress("john.example.com")).toBeNull();
  });

  it("rejects an empty local part", () => {
    expect(parseAddress("@example.com")).toBeNull();
  });

  it("rejects an empty domain", () => {
    expect(parseAddress("john@")).toBeNull();
  });

  it("rejects two unquoted @ signs", () => {
    expect(parseAddress("a@b@example.com")).toBeNull();
  });

  it("accepts a local part of exactly 64 octets", () => {
    const local = "a".repeat(64);
    expect(parseAddress(`${local}@example.com`)).toEqual({ local, domain: "example.com" });
  });

  it("rejects a local part of 65 octets", () => {
    expect(parseAddress(`${"a".repeat(65)}@example.com`)).toBeNull();
  });

  it("counts the local part in UTF-8 octets, not characters", () => {
    // 32 x "é" is 64 octets (accepted); 33 x "é" is 66 octets though only 33 characters (refused).
    expect(parseAddress(`${"é".repeat(32)}@example.com`)).not.toBeNull();
    expect(parseAddress(`${"é".repeat(33)}@example.com`)).toBeNull();
  });

  it("accepts an address of exactly 254 octets", () => {
    const address = addressOfLength(254);
    expect(address.length).toBe(254);
    expect(parseAddress(address)).not.toBeNull();
  });

  it("rejects an address of 255 octets", () => {
    const address = addressOfLength(255);
    expect(address.length).toBe(255);
    expect(parseAddress(address)).toBeNull();
  });

  it("rejects a domain without a dot", () => {
    expect(parseAddress("john@localhost")).toBeNull();
  });

  it("accepts a domain label of exactly 63 characters", () => {
    const label = "a".repeat(63);
    expect(parseAddress(`john@${label}.com`)).toEqual({ local: "john", domain: `${label}.com` });
  });

  it("rejects a domain label of 64 characters", () => {
    expect(parseAddress(`john@${"a".repeat(64)}.com`)).toBeNull();
  });

  it("rejects a domain label with a leading hyphen", () => {
    expect(parseAddress("john@-example.com")).toBeNull();
  });

  it("rejects a domain label with a trailing hyphen", () => {
    expect(parseAddress("john@example-.com")).toBeNull();
  });

  it("rejects an all-numeric top-level label", () => {
    expect(parseAddress("john@example.123")).toBeNull();
  });

  it("rejects a dotted IPv4 address as the domain", () => {
    expect(parseAddress("john@192.0.2.1")).toBeNull();
  });

  it("rejects an IPv4 address literal", () => {
    expect(parseAddress("john@[192.0.2.1]")).toBeNull();
  });

  it("rejects an IPv6 address literal", () => {
    expect(parseAddress("john@[IPv6:2001:db8::1]")).toBeNull();
  });

  it("rejects a space in an unquoted local part", () => {
    expect(parseAddress("john smith@example.com")).toBeNull();
  });

  it("rejects a space in the domain", () => {
    expect(parseAddress("john@exa mple.com")).toBeNull();
  });

  it("rejects an underscore in the domain", () => {
    expect(parseAddress("john@exa_mple.com")).toBeNull();
  });

  it("rejects an unbalanced quote in the local part", () => {
    expect(parseAddress('john"@example.com')).toBeNull();
  });

  it("rejects a one-letter top-level label", () => {
    expect(parseAddress("john@example.c")).toBeNull();
  });

  it("rejects an empty domain label (double dot in the domain)", () => {
    expect(parseAddress("john@example..com")).toBeNull();
  });
});

describe("toAsciiHostname", () => {
  it("returns a plain host name lowercased", () => {
    expect(toAsciiHostname("Mail.Example.COM")).toBe("mail.example.com");
  });

  it("converts an IDN host name to punycode", () => {
    expect(toAsciiHostname("bücher.de")).toBe("xn--bcher-kva.de");
  });

  it("accepts an IDN top-level label in punycode when the public suffix list has it", () => {
    expect(toAsciiHostname("пример.рф")).toBe("xn--e1afmkfd.xn--p1ai");
    expect(toAsciiHostname("例え.テスト")).toBeNull();
  });

  it("drops a single trailing root dot", () => {
    expect(toAsciiHostname("example.com.")).toBe("example.com");
  });

  it("trims surrounding whitespace", () => {
    expect(toAsciiHostname("  example.com  ")).toBe("example.com");
  });

  it("refuses a single-label host", () => {
    expect(toAsciiHostname("localhost")).toBeNull();
  });

  it("refuses an empty string", () => {
    expect(toAsciiHostname("")).toBeNull();
  });

  it("refuses a host with a path, port, query or userinfo", () => {
    expect(toAsciiHostname("example.com/path")).toBeNull();
    expect(toAsciiHostname("example.com:25")).toBeNull();
    expect(toAsciiHostname("example.com?x")).toBeNull();
    expect(toAsciiHostname("user@example.com")).toBeNull();
  });

  it("refuses a bracketed address literal", () => {
    expect(toAsciiHostname("[192.0.2.1]")).toBeNull();
  });

  it("refuses percent-encoded text", () => {
    expect(toAsciiHostname("ex%61mple.com")).toBeNull();
  });

  it("refuses a numeric top-level label", () => {
    expect(toAsciiHostname("example.42")).toBeNull();
  });

  it("refuses labels starting or ending with a hyphen", () => {
    expect(toAsciiHostname("-a.example.com")).toBeNull();
    expect(toAsciiHostname("a-.example.com")).toBeNull();
  });

  it("refuses a label longer than 63 characters", () => {
    expect(toAsciiHostname(`${"b".repeat(64)}.example.com`)).toBeNull();
  });

  it("refuses a host name longer than 253 characters", () => {
    const host = `${Array.from({ length: 4 }, () => "a".repeat(62)).join(".")}.com`; // 4*62 + 3 + 4 = 255
    expect(host.length).toBeGreaterThan(253);
    expect(toAsciiHostname(host)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// username.ts (real bundled dataset provider-username-rules)
// ---------------------------------------------------------------------------------------------------------------------

describe("normalizeAddress", () => {
  it("the bundled dataset has rules for gmail, microsoft, yahoo and icloud", () => {
    const providers = rules.map((r) => r.provider);
    expect(providers).toEqual(expect.arrayContaining(["gmail", "microsoft", "yahoo", "icloud"]));
    expect(rules.find((r) => r.provider === "gmail")!.domains).toEqual(expect.arrayContaining(["gmail.com", "googlemail.com"]));
  });

  it("Gmail: drops dots and the plus tag and folds googlemail.com into gmail.com", () => {
    expect(normalizeAddress("J.o.h.n.Smith+news", "googlemail.com")).toEqual({
      normalizedEmail: "johnsmith@gmail.com",
      isAlias: true,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Gmail: a plain, valid username is not an alias", () => {
    expect(normalizeAddress("johnsmith", "gmail.com")).toEqual({
      normalizedEmail: "johnsmith@gmail.com",
      isAlias: false,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Gmail: a dotted username is an alias of the undotted one", () => {
    const n = normalizeAddress("john.smith", "gmail.com");
    expect(n.normalizedEmail).toBe("johnsmith@gmail.com");
    expect(n.isAlias).toBe(true);
  });

  it("Gmail: a plus tag alone makes an alias", () => {
    const n = normalizeAddress("johnsmith+promo", "gmail.com");
    expect(n.normalizedEmail).toBe("johnsmith@gmail.com");
    expect(n.isAlias).toBe(true);
  });

  it("Gmail: an undotted googlemail.com address is an alias because the domain folds", () => {
    const n = normalizeAddress("johnsmith", "googlemail.com");
    expect(n.normalizedEmail).toBe("johnsmith@gmail.com");
    expect(n.isAlias).toBe(true);
  });

  it("Gmail: a username shorter than 6 characters is invalid (abc@gmail.com)", () => {
    const n = normalizeAddress("abc", "gmail.com");
    expect(n.usernameInvalid).toBe(true);
    expect(n.ruleApplied).toBe(true);
  });

  it("Gmail: a username of exactly 6 characters is valid", () => {
    expect(normalizeAddress("abcdef", "gmail.com").usernameInvalid).toBe(false);
  });

  it("Gmail: a username longer than 30 characters is invalid", () => {
    expect(normalizeAddress("a".repeat(30), "gmail.com").usernameInvalid).toBe(false);
    expect(normalizeAddress("a".repeat(31), "gmail.com").usernameInvalid).toBe(true);
  });

  it("Gmail: a hyphen or underscore makes the username invalid", () => {
    expect(normalizeAddress("john-smith", "gmail.com").usernameInvalid).toBe(true);
    expect(normalizeAddress("john_smith", "gmail.com").usernameInvalid).toBe(true);
  });

  it("Gmail: a username starting or ending with a dot is invalid", () => {
    expect(normalizeAddress(".johnsmith", "gmail.com").usernameInvalid).toBe(true);
    expect(normalizeAddress("johnsmith.", "gmail.com").usernameInvalid).toBe(true);
  });

  it("Gmail: the plus tag is not judged against the username rules", () => {
    expect(normalizeAddress("johnsmith+a-b_c", "gmail.com").usernameInvalid).toBe(false);
  });

  it("Gmail: the length is judged on the address as written, with its dots (lenient)", () => {
    // "a.b.c.d.e" is 9 characters written but only 5 once dots are dropped; the lenient reading accepts it.
    const n = normalizeAddress("a.b.c.d.e", "gmail.com");
    expect(n.normalizedEmail).toBe("abcde@gmail.com");
    expect(n.usernameInvalid).toBe(false);
  });

  it("Gmail: the username is lowercased in the normalized form", () => {
    expect(normalizeAddress("JohnSmith", "gmail.com").normalizedEmail).toBe("johnsmith@gmail.com");
  });

  it("Outlook: strips the plus tag but keeps dots and the domain", () => {
    expect(normalizeAddress("first.last+x", "outlook.com")).toEqual({
      normalizedEmail: "first.last@outlook.com",
      isAlias: true,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Outlook: an untagged dotted address is not an alias", () => {
    expect(normalizeAddress("first.last", "outlook.com")).toEqual({
      normalizedEmail: "first.last@outlook.com",
      isAlias: false,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Microsoft: hotmail.com is not folded into outlook.com", () => {
    expect(normalizeAddress("first.last+x", "hotmail.com").normalizedEmail).toBe("first.last@hotmail.com");
  });

  it("Microsoft: a username starting with a dot or hyphen is invalid", () => {
    expect(normalizeAddress("-first", "outlook.com").usernameInvalid).toBe(true);
    expect(normalizeAddress("_first", "outlook.com").usernameInvalid).toBe(true);
  });

  it("Yahoo: a base-keyword disposable address folds to its base", () => {
    expect(normalizeAddress("base-keyword", "yahoo.com")).toEqual({
      normalizedEmail: "base@yahoo.com",
      isAlias: true,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Yahoo: the base-keyword rule applies on the other Yahoo domains too (ymail.com)", () => {
    expect(normalizeAddress("mybase-shopping", "ymail.com").normalizedEmail).toBe("mybase@ymail.com");
  });

  it("Yahoo: a username with two hyphens is not a base-keyword alias", () => {
    const n = normalizeAddress("a-b-c", "yahoo.com");
    expect(n.normalizedEmail).toBe("a-b-c@yahoo.com");
    expect(n.isAlias).toBe(false);
  });

  it("Yahoo: a plain valid username is not an alias", () => {
    expect(normalizeAddress("john.smith", "yahoo.com")).toEqual({
      normalizedEmail: "john.smith@yahoo.com",
      isAlias: false,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("Yahoo: has no plus addressing, so the tag is kept and the username is invalid", () => {
    const n = normalizeAddress("john+tag", "yahoo.com");
    expect(n.normalizedEmail).toBe("john+tag@yahoo.com");
    expect(n.usernameInvalid).toBe(true);
  });

  it("Yahoo: a username shorter than 4 characters is invalid", () => {
    expect(normalizeAddress("abc", "yahoo.com").usernameInvalid).toBe(true);
    expect(normalizeAddress("abcd", "yahoo.com").usernameInvalid).toBe(false);
  });

  it("Yahoo: a username starting with a digit is invalid", () => {
    expect(normalizeAddress("1john", "yahoo.com").usernameInvalid).toBe(true);
  });

  it("iCloud: strips the plus tag", () => {
    expect(normalizeAddress("jane.doe+shop", "icloud.com")).toEqual({
      normalizedEmail: "jane.doe@icloud.com",
      isAlias: true,
      usernameInvalid: false,
      ruleApplied: true,
    });
  });

  it("iCloud: me.com and mac.com fold into icloud.com", () => {
    expect(normalizeAddress("jane", "me.com").normalizedEmail).toBe("jane@icloud.com");
    expect(normalizeAddress("jane+x", "mac.com").normalizedEmail).toBe("jane@icloud.com");
    expect(normalizeAddress("jane", "me.com").isAlias).toBe(true);
  });

  it("iCloud: a username starting with a digit is invalid", () => {
    expect(normalizeAddress("9jane", "icloud.com").usernameInvalid).toBe(true);
  });

  it("unknown domain: keeps the plus tag in the normalized form, lowercased", () => {
    expect(normalizeAddress("Ann+News", "example.org").normalizedEmail).toBe("ann+news@example.org");
  });

  it("unknown domain: a tagged address is an alias", () => {
    expect(normalizeAddress("ann+news", "example.org").isAlias).toBe(true);
  });

  it("unknown domain: an untagged address is not an alias", () => {
    expect(normalizeAddress("ann", "example.org").isAlias).toBe(false);
  });

  it("unknown domain: never marks the username invalid and applies no rule", () => {
    const n = normalizeAddress("a", "example.org");
    expect(n.usernameInvalid).toBe(false);
    expect(n.ruleApplied).toBe(false);
  });

  it("unknown domain: keeps dots", () => {
    expect(normalizeAddress("a.b.c", "example.org").normalizedEmail).toBe("a.b.c@example.org");
  });

  it("a leading plus sign is not a plus tag", () => {
    expect(normalizeAddress("+ann", "example.org").isAlias).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// typo.ts (real bundled dataset typo-domains)
// ---------------------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------------------
// gibberish.ts
// ---------------------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------------------
// score.ts
// ---------------------------------------------------------------------------------------------------------------------

/** A clean deliverable answer: no risk signal at all (SPF published, DMARC reject). */
const clean = (over: Partial<ScoreInputs> = {}): ScoreInputs => ({
  deliverable: "deliverable",
  reason: null,
  disposable: false,
  role: false,
  catch_all: false,
  is_gibberish: false,
  did_you_mean: null,
  domain_age_days: null,
  has_spf: true,
  dmarc_policy: "reject",
  has_dmarc: true,
  mx_provider: null,
  smtp_reason: null,
  mailbox_confidence: null,
  ...over,
});

type ConfidenceInputs = Parameters<typeof mailboxConfidence>[0];
const neutral = (over: Partial<ConfidenceInputs> = {}): ConfidenceInputs => {
  const { deliverable: _d, reason: _r, mailbox_confidence: _m, ...rest } = clean({ has_spf: false, dmarc_policy: null, has_dmarc: false });
  return { ...rest, ...over };
};

describe("riskComponents and riskScore", () => {
  it("a clean deliverable answer with SPF and DMARC scores 0, low, with no components", () => {
    const a = clean();
    expect(riskComponents(a)).toEqual({});
    expect(riskScore(a)).toBe(0);
    expect(riskLevel(riskScore(a))).toBe("low");
  });

  it("an undeliverable answer scores 100 with the single component undeliverable", () => {
    const a = clean({ deliverable: "undeliverable", reason: "mailbox_not_found" });
    expect(riskComponents(a)).toEqual({ undeliverable: 100 });
    expect(riskScore(a)).toBe(100);
  });

  it("an undeliverable answer ignores every other signal", () => {
    const a = clean({ deliverable: "undeliverable", disposable: true, role: true, has_spf: false, dmarc_policy: null, has_dmarc: false });
    expect(riskComponents(a)).toEqual({ undeliverable: 100 });
  });

  it("disposable alone scores 90, high", () => {
    const a = clean({ deliverable: "risky", reason: "disposable", disposable: true });
    expect(riskComponents(a)).toEqual({ disposable: 90 });
    expect(riskScore(a)).toBe(90);
    expect(riskLevel(riskScore(a))).toBe("high");
  });

  it("catch_all alone scores 35, medium", () => {
    const a = clean({ deliverable: "risky", reason: "catch_all", catch_all: true });
    expect(riskComponents(a)).toEqual({ catch_all: 35 });
    expect(riskScore(a)).toBe(35);
    expect(riskLevel(riskScore(a))).toBe("medium");
  });

  it("role alone scores 25, low", () => {
    const a = clean({ deliverable: "risky", reason: "role", role: true });
    expect(riskComponents(a)).toEqual({ role: 25 });
    expect(riskScore(a)).toBe(25);
    expect(riskLevel(riskScore(a))).toBe("low");
  });

  it("a typo_domain reason scores 60 and replaces the did_you_mean points", () => {
    const a = clean({ deliverable: "risky", reason: "typo_domain", did_you_mean: "a@gmail.com" });
    expect(riskComponents(a)).toEqual({ typo_domain: 60 });
  });

  it("a did_you_mean suggestion without the typo_domain reason scores 20", () => {
    expect(riskComponents(clean({ did_you_mean: "a@gmail.com" }))).toEqual({ did_you_mean: 20 });
  });

  it("gibberish scores 15", () => {
    expect(riskComponents(clean({ is_gibberish: true }))).toEqual({ gibberish: 15 });
  });

  it("an unverified answer scores round(60 x (1 - mailbox_confidence))", () => {
    const a = clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.7 });
    expect(riskComponents(a)).toEqual({ unverified: 18 });
    expect(riskScore(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.05 }))).toBe(57);
    expect(riskScore(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.95 }))).toBe(3);
  });

  it("an unverified answer without a confidence adds no unverified points", () => {
    expect(riskComponents(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: null }))).toEqual({});
  });

  it("a confidence on a non-unverified answer adds no points", () => {
    expect(riskComponents(clean({ mailbox_confidence: 0.1 }))).toEqual({});
  });

  it("a domain younger than 30 days scores new_domain 20", () => {
    expect(riskComponents(clean({ domain_age_days: 0 }))).toEqual({ new_domain: 20 });
    expect(riskComponents(clean({ domain_age_days: 29 }))).toEqual({ new_domain: 20 });
  });

  it("a domain 30 to 179 days old scores young_domain 10", () => {
    expect(riskComponents(clean({ domain_age_days: 30 }))).toEqual({ young_domain: 10 });
    expect(riskComponents(clean({ domain_age_days: 179 }))).toEqual({ young_domain: 10 });
  });

  it("a domain 180 days or older, or of unknown age, scores nothing for age", () => {
    expect(riskComponents(clean({ domain_age_days: 180 }))).toEqual({});
    expect(riskComponents(clean({ domain_age_days: null }))).toEqual({});
  });

  it("a missing SPF record scores 5, an unknown one nothing", () => {
    expect(riskComponents(clean({ has_spf: false }))).toEqual({ no_spf: 5 });
    expect(riskComponents(clean({ has_spf: null }))).toEqual({});
  });

  it("no DMARC policy scores 5, an unknown one (the query got no answer) nothing", () => {
    expect(riskComponents(clean({ dmarc_policy: null, has_dmarc: false }))).toEqual({ no_dmarc: 5 });
    expect(riskComponents(clean({ dmarc_policy: null, has_dmarc: null }))).toEqual({});
  });

  it("a typo domain that is also on the disposable list is scored once, as the typo", () => {
    const a = clean({ deliverable: "risky", reason: "typo_domain", disposable: true, did_you_mean: "bob@gmail.com" });
    expect(riskComponents(a)).toEqual({ typo_domain: 60 });
    expect(riskScore(a)).toBe(60);
  });

  it("unknown catch-all (no mailbox answer) scores nothing", () => {
    expect(riskComponents(clean({ deliverable: "risky", reason: "disposable", disposable: true, catch_all: null }))).toEqual({ disposable: 90 });
  });

  it("any DMARC policy, even none, removes the no_dmarc points", () => {
    expect(riskComponents(clean({ dmarc_policy: "none" }))).toEqual({});
  });

  it("the score is the sum of the components", () => {
    const a = clean({ deliverable: "risky", reason: "role", role: true, is_gibberish: true, has_spf: false, dmarc_policy: null, has_dmarc: false, domain_age_days: 100 });
    expect(riskComponents(a)).toEqual({ role: 25, gibberish: 15, young_domain: 10, no_spf: 5, no_dmarc: 5 });
    expect(riskScore(a)).toBe(60);
  });

  it("the score is capped at 100", () => {
    const a = clean({ deliverable: "risky", disposable: true, catch_all: true, role: true });
    expect(Object.values(riskComponents(a)).reduce((s, n) => s + n, 0)).toBe(150);
    expect(riskScore(a)).toBe(100);
  });
});

describe("riskLevel", () => {
  it("0 is low", () => {
    expect(riskLevel(0)).toBe("low");
  });

  it("29 is low and 30 is medium", () => {
    expect(riskLevel(29)).toBe("low");
    expect(riskLevel(30)).toBe("medium");
  });

  it("69 is medium and 70 is high", () => {
    expect(riskLevel(69)).toBe("medium");
    expect(riskLevel(70)).toBe("high");
  });

  it("100 is high", () => {
    expect(riskLevel(100)).toBe("high");
  });
});

describe("mailboxConfidence", () => {
  it("starts at 0.5 with no signal", () => {
    expect(mailboxConfidence(neutral())).toBe(0.5);
  });

  it("adds 0.15 for a major mail provider", () => {
    expect(mailboxConfidence(neutral({ mx_provider: "google" }))).toBe(0.65);
    expect(mailboxConfidence(neutral({ mx_provider: "microsoft" }))).toBe(0.65);
  });

  it("adds nothing for a provider that is not a major one", () => {
    expect(mailboxConfidence(neutral({ mx_provider: "service-test" }))).toBe(0.5);
  });

  it("adds 0.05 for SPF and 0.05 for any DMARC policy", () => {
    expect(mailboxConfidence(neutral({ has_spf: true }))).toBe(0.55);
    expect(mailboxConfidence(neutral({ dmarc_policy: "none" }))).toBe(0.55);
  });

  it("adds 0.1 when greylisted, nothing for a timeout", () => {
    expect(mailboxConfidence(neutral({ smtp_reason: "greylisted" }))).toBe(0.6);
    expect(mailboxConfidence(neutral({ smtp_reason: "timeout" }))).toBe(0.5);
  });

  it("adds 0.05 for a role address", () => {
    expect(mailboxConfidence(neutral({ role: true }))).toBe(0.55);
  });

  it("subtracts 0.25 for gibberish, 0.2 for a typo suggestion, 0.1 for a domain younger than 180 days", () => {
    expect(mailboxConfidence(neutral({ is_gibberish: true }))).toBe(0.25);
    expect(mailboxConfidence(neutral({ did_you_mean: "a@gmail.com" }))).toBe(0.3);
    expect(mailboxConfidence(neutral({ domain_age_days: 179 }))).toBe(0.4);
    expect(mailboxConfidence(neutral({ domain_age_days: 180 }))).toBe(0.5);
  });

  it("rounds to 2 decimals (0.5 + 0.15 + 0.05 is exactly 0.7, not 0.7000000000000001)", () => {
    expect(0.5 + 0.15 + 0.05).not.toBe(0.7);
    expect(mailboxConfidence(neutral({ mx_provider: "google", has_spf: true }))).toBe(0.7);
  });

  it("clamps at the lower bound 0.05", () => {
    // 0.5 - 0.25 - 0.2 - 0.1 = -0.05 before the clamp.
    expect(mailboxConfidence(neutral({ is_gibberish: true, did_you_mean: "a@gmail.com", domain_age_days: 1 }))).toBe(0.05);
  });

  it("the most favourable answer stays within the upper bound 0.95", () => {
    const best = mailboxConfidence(
      neutral({ mx_provider: "google", has_spf: true, dmarc_policy: "reject", smtp_reason: "greylisted", role: true }),
    );
    expect(best).toBe(0.9);
    expect(best).toBeLessThanOrEqual(0.95);
  });

  it("round2 rounds to two decimals", () => {
    expect(round2(0.123)).toBe(0.12);
    expect(round2(0.125 + 1e-9)).toBe(0.13);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// test-addresses.ts
// ---------------------------------------------------------------------------------------------------------------------

/** Every field of the spec's "Email result" table. */
const SPEC_FIELDS = [
  "email",
  "normalized_email",
  "is_alias",
  "is_gibberish",
  "deliverable",
  "reason",
  "risk_score",
  "risk_level",
  "syntax_valid",
  "domain",
  "mx_found",
  "mx_implicit",
  "mx_provider",
  "has_spf",
  "dmarc_policy",
  "domain_registered_at",
  "domain_age_days",
  "disposable",
  "role",
  "free_provider",
  "smtp_checked",
  "smtp_checked_at",
  "mailbox_exists",
  "catch_all",
  "smtp_reason",
  "mailbox_confidence",
  "did_you_mean",
  "sources",
] as const;

const canned = (local: string) => cannedAnswer(local, "service.test", `${local}@service.test`);

describe("cannedAnswer (test addresses on service.test)", () => {
  it("the snapshot lists exactly the six spec local parts on service.test", () => {
    expect(testData.domain).toBe("service.test");
    expect([...testData.local_parts].sort()).toEqual(["catch-all", "deliverable", "disposable", "role", "undeliverable", "unverified"]);
  });

  it("deliverable@service.test is deliverable, mailbox confirmed, risk_score 0", () => {
    const r = canned("deliverable")!;
    expect(r.deliverable).toBe("deliverable");
    expect(r.reason).toBeNull();
    expect(r.mailbox_exists).toBe(true);
    expect(r.smtp_checked).toBe(true);
    expect(r.risk_score).toBe(0);
    expect(r.risk_level).toBe("low");
  });

  it("deliverable@service.test carries an ISO 8601 smtp_checked_at", () => {
    const r = canned("deliverable")!;
    expect(r.smtp_checked_at).not.toBeNull();
    expect(new Date(r.smtp_checked_at!).toISOString()).toBe(r.smtp_checked_at);
  });

  it("unverified@service.test is risky, unverified, not checked, greylisted, with a numeric confidence", () => {
    const r = canned("unverified")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("unverified");
    expect(r.smtp_checked).toBe(false);
    expect(r.smtp_reason).toBe("greylisted");
    expect(typeof r.mailbox_confidence).toBe("number");
    expect(r.mailbox_confidence).toBeGreaterThanOrEqual(0.05);
    expect(r.mailbox_confidence).toBeLessThanOrEqual(0.95);
  });

  it("unverified@service.test has mailbox_exists null (POST /email rule 2)", () => {
    expect(canned("unverified")!.mailbox_exists).toBeNull();
  });

  it("catch-all@service.test is risky, catch_all, mailbox_exists null, catch_all true", () => {
    const r = canned("catch-all")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("catch_all");
    expect(r.mailbox_exists).toBeNull();
    expect(r.catch_all).toBe(true);
  });

  it("disposable@service.test is risky, disposable, risk_score 90", () => {
    const r = canned("disposable")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("disposable");
    expect(r.disposable).toBe(true);
    expect(r.risk_score).toBe(90);
  });

  it("role@service.test is risky with reason role", () => {
    const r = canned("role")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("role");
    expect(r.role).toBe(true);
  });

  it("undeliverable@service.test is undeliverable, mailbox_not_found, smtp_reason no_mailbox", () => {
    const r = canned("undeliverable")!;
    expect(r.deliverable).toBe("undeliverable");
    expect(r.reason).toBe("mailbox_not_found");
    expect(r.smtp_reason).toBe("no_mailbox");
    expect(r.mailbox_exists).toBe(false);
  });

  it("only the unverified answer sets mailbox_confidence", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      if (local === "unverified") expect(r.mailbox_confidence, local).not.toBeNull();
      else expect(r.mailbox_confidence, local).toBeNull();
    }
  });

  it("only the catch-all answer has catch_all true; answers without a mailbox answer have it null", () => {
    const expected = (local: string) => (local === "catch-all" ? true : local === "disposable" || local === "unverified" ? null : false);
    for (const local of testData.local_parts) expect(canned(local)!.catch_all, local).toBe(expected(local));
  });

  it("every answer has every field of the spec's Email result table", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      for (const field of SPEC_FIELDS) expect(r, `${local}: ${field}`).toHaveProperty(field);
    }
  });

  it("every answer is syntax-valid, on service.test, and not free, gibberish or a typo", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      expect(r.syntax_valid, local).toBe(true);
      expect(r.domain, local).toBe("service.test");
      expect(r.free_provider, local).toBe(false);
      expect(r.is_gibberish, local).toBe(false);
      expect(r.did_you_mean, local).toBeNull();
      expect(r.mx_found, local).toBe(true);
    }
  });

  it("every answer's risk_score, risk_level and confidence are recomputable from its own fields", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      expect(riskScore(r), local).toBe(r.risk_score);
      expect(riskLevel(r.risk_score), local).toBe(r.risk_level);
      if (r.mailbox_confidence !== null) expect(mailboxConfidence(r), local).toBe(r.mailbox_confidence);
      expect(Number.isInteger(r.risk_score), local).toBe(true);
    }
  });

  it("sources is exactly the test-addresses dataset with the snapshot's version", () => {
    for (const local of testData.local_parts) {
      expect(canned(local)!.sources, local).toEqual([{ dataset: "test-addresses", version: testSnapshot.version }]);
    }
  });

  it("a plus-tagged test address gets the same verdict as the bare one", () => {
    const tagged = cannedAnswer("deliverable+abc", "service.test", "deliverable+abc@service.test")!;
    expect(tagged).not.toBeNull();
    expect(tagged.deliverable).toBe("deliverable");
    expect(tagged.mailbox_exists).toBe(true);
    expect(tagged.risk_score).toBe(0);
  });

  it("a plus-tagged test address keeps the tag in email and drops it in normalized_email", () => {
    const tagged = cannedAnswer("deliverable+abc", "service.test", "deliverable+abc@service.test")!;
    expect(tagged.email).toBe("deliverable+abc@service.test");
    expect(tagged.normalized_email).toBe("deliverable@service.test");
    expect(tagged.is_alias).toBe(true);
  });

  it("plus tags work on every test local part", () => {
    for (const local of testData.local_parts) {
      const bare = canned(local)!;
      const tagged = cannedAnswer(`${local}+tag`, "service.test", `${local}+tag@service.test`)!;
      expect(tagged, local).not.toBeNull();
      expect({ ...tagged, email: bare.email, is_alias: false }, local).toEqual(bare);
    }
  });

  it("a bare test address is not an alias and its normalized form equals its email", () => {
    const r = canned("role")!;
    expect(r.email).toBe("role@service.test");
    expect(r.normalized_email).toBe("role@service.test");
    expect(r.is_alias).toBe(false);
  });

  it("the local part matches regardless of case", () => {
    const r = cannedAnswer("Deliverable", "service.test", "Deliverable@service.test");
    expect(r).not.toBeNull();
    expect(r!.deliverable).toBe("deliverable");
  });

  it("an unknown local part on service.test returns null", () => {
    expect(cannedAnswer("nobody", "service.test", "nobody@service.test")).toBeNull();
    expect(cannedAnswer("deliverables", "service.test", "deliverables@service.test")).toBeNull();
  });

  it("a test local part on another domain returns null", () => {
    expect(cannedAnswer("deliverable", "example.com", "deliverable@example.com")).toBeNull();
    expect(cannedAnswer("deliverable", "sub.service.test", "deliverable@sub.service.test")).toBeNull();
  });

  it("the answer is identical across calls", () => {
    for (const local of testData.local_parts) {
      const first = canned(local);
      const second = canned(local);
      expect(second, local).toEqual(first);
      expect(JSON.stringify(second), local).toBe(JSON.stringify(first));
    }
  });
});
