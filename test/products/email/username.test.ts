/**
 * Unit tests of src/products/email/username.ts (real bundled dataset provider-username-rules), driven by the spec
 * (verification-api.md: "Email result", "Test addresses", "POST /api/v1/email" rules) and the bundled dataset
 * snapshots.
 */
import { describe, expect, it } from "vitest";
import rulesSnapshot from "../../../datasets/snapshots/provider-username-rules.json";
import { normalizeAddress } from "../../../src/products/email/username";

const rules = rulesSnapshot.data as { provider: string; domains: string[] }[];

describe("normalizeAddress", () => {
  it("the bundled dataset has rules for gmail, microsoft, yahoo and icloud", () => {
    const providers = rules.map((r) => r.provider);
    expect(providers).toEqual(expect.arrayContaining(["gmail", "microsoft", "yahoo", "icloud"]));
    expect(rules.find((r) => r.provider === "gmail")!.domains).toEqual(
      expect.arrayContaining(["gmail.com", "googlemail.com"]),
    );
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
