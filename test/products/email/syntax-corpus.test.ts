/**
 * Our address syntax (`parseAddress`, the pipeline's syntax step) against validator.js's isEmail corpus: the package's
 * own test cases (test/fixtures/validator-is-email-corpus.ts), judged by the package itself with default options.
 * The test prints the agreement count (docs/email.md, "Syntax against validator.js").
 */
import isEmail from "validator/lib/isEmail";
import { describe, expect, it } from "vitest";
import { extractAddress } from "../../../src/products/email/extract";
import { parseAddress } from "../../../src/products/email/syntax";
import { CORPUS, IS_EMAIL_CASES, type IsEmailCase } from "../../fixtures/validator-is-email-corpus";

/**
 * The package as published (13.15.x) throws on an unpaired UTF-16 surrogate, which its repository's newer case expects
 * to be refused without throwing: a throw is a refusal.
 */
function accepts(address: string, options?: IsEmailCase["options"]): boolean {
  try {
    return isEmail(address, options);
  } catch {
    return false;
  }
}

describe("validator.js isEmail corpus", () => {
  it("the listed labels are what the installed package answers", () => {
    for (const c of IS_EMAIL_CASES) {
      for (const address of c.valid) expect([address, accepts(address, c.options)]).toEqual([address, true]);
      for (const address of c.invalid) expect([address, accepts(address, c.options)]).toEqual([address, false]);
    }
  });

  it("agrees with isEmail (default options) on every distinct address", () => {
    const disagreements = CORPUS.filter((address) => (parseAddress(address) !== null) !== accepts(address));
    console.log(
      `validator.js isEmail corpus: we agree on ${CORPUS.length - disagreements.length} of ${CORPUS.length} addresses`,
    );
    expect(disagreements.map((d) => ({ address: d, ours: parseAddress(d) !== null }))).toEqual([]);
  });

  it("a pasted address still loses sentence punctuation first: only the syntax step refuses a trailing dot", () => {
    expect(parseAddress("foo@bar.com.")).toBeNull();
    expect(parseAddress(extractAddress("foo@bar.co.uk."))).toEqual({ local: "foo", domain: "bar.co.uk" });
    expect(parseAddress("somename@\uFF47mail.com")).toBeNull();
  });
});
