/**
 * Address reading against public corpora: the valid and invalid examples Wikipedia's "Email address" article lists
 * (RFC 5322 / 6532 cases), what mail clients and spreadsheets put around addresses when they are pasted, and typo
 * suggestions checked against real, correct domains.
 */
import { describe, expect, it } from "vitest";
import { extractAddress } from "../../../src/products/email/extract";
import { parseAddress } from "../../../src/products/email/syntax";
import { checkTypo } from "../../../src/products/email/typo";

const read = (raw: string) => parseAddress(extractAddress(raw));

describe("valid addresses (Wikipedia, Email address: Examples)", () => {
  it.each([
    ["simple@example.com", "simple", "example.com"],
    ["very.common@example.com", "very.common", "example.com"],
    ["FirstName.LastName@EasierReading.org", "FirstName.LastName", "easierreading.org"],
    ["x@example.com", "x", "example.com"],
    [
      "long.email-address-with-hyphens@and.subdomains.example.com",
      "long.email-address-with-hyphens",
      "and.subdomains.example.com",
    ],
    ["user.name+tag+sorting@example.com", "user.name+tag+sorting", "example.com"],
    ["name/surname@example.com", "name/surname", "example.com"],
    ["example@s.example", "example", "s.example"],
    ['" "@example.org', '" "', "example.org"],
    ['"john..doe"@example.org', '"john..doe"', "example.org"],
    ["mailhost!username@example.org", "mailhost!username", "example.org"],
    [
      String.raw`"very.(),:;<>[]\".VERY.\"very@\\ \"very\".unusual"@strange.example.com`,
      String.raw`"very.(),:;<>[]\".VERY.\"very@\\ \"very\".unusual"`,
      "strange.example.com",
    ],
    ["user%example.com@example.org", "user%example.com", "example.org"],
    ["user-@example.org", "user-", "example.org"],
    ["I❤️CHOCOLATE@example.com", "I❤️CHOCOLATE", "example.com"],
    ["अजय@डाटा.भारत", "अजय", "xn--c2bd1gb.xn--h2brj9c"],
    ["квіточка@пошта.укр", "квіточка", "xn--80a1acn3a.xn--j1amh"],
    // The article's made-up IDN TLDs (.广告, .ψομ) are in no public suffix list: read as no TLD at all.
    ["用户@例子.广告", null, null],
    ["θσερ@εχαμπλε.ψομ", null, null],
  ])("reads %s", (raw, local, domain) => {
    expect(read(raw)).toEqual(local === null ? null : { local, domain });
  });

  it("keeps UTF-8 inside a quoted local part (RFC 6532), escaped quotes included", () => {
    expect(read('"jöhn döe"@example.com')).toEqual({ local: '"jöhn döe"', domain: "example.com" });
    expect(read(String.raw`"john \"jr\" doe"@example.com`)).toEqual({
      local: String.raw`"john \"jr\" doe"`,
      domain: "example.com",
    });
    expect(read(String.raw`Ann <"john \"jr\" doe"@example.com>;`)).toEqual({
      local: String.raw`"john \"jr\" doe"`,
      domain: "example.com",
    });
  });
});

describe("invalid addresses (Wikipedia, Email address: Examples)", () => {
  it.each([
    "abc.example.com",
    "a@b@c@example.com",
    String.raw`a"b(c)d,e:f;g<h>i[j\k]l@example.com`,
    'just"not"right@example.com',
    String.raw`this is"not\allowed@example.com`,
    String.raw`this\ still\"not\\allowed@example.com`,
    "1234567890123456789012345678901234567890123456789012345678901234+x@example.com",
    "i.like.underscores@but_they_are_not_allowed_in_this_part",
    "postmaster@[123.123.123.123]",
  ])("refuses %s", (raw) => {
    expect(read(raw)).toBeNull();
  });
});

describe("what pasting puts around an address", () => {
  it.each([
    ["Ann Lee <ann@x.com>;", "ann@x.com"],
    ["Ann Lee <ann@x.com>,", "ann@x.com"],
    ['"Lee, Ann" <ann@x.com>; ', "ann@x.com"],
    ["\u201cann@x.com\u201d", "ann@x.com"],
    ["\u2018ann@x.com\u2019", "ann@x.com"],
    ["\u00abann@x.com\u00bb", "ann@x.com"],
    ["Email: ann@x.com", "ann@x.com"],
    ["E-mail address: ann@x.com", "ann@x.com"],
    ["email:ann@x.com", "ann@x.com"],
    ["ann@x.com (Ann Lee)", "ann@x.com"],
    ["ann@x.com (Ann Lee),", "ann@x.com"],
    ["mailto:ann@x.com", "ann@x.com"],
  ])("reads %j as %s", (raw, expected) => {
    expect(extractAddress(raw)).toBe(expected);
  });

  it("does not turn a character stuck to the end of the domain into a made-up punycode TLD", () => {
    for (const raw of ["ann@example.comé", "ann@example.com\u2026", "ann@example.com\u00e7", "ann@gmail.com\u00a7x"]) {
      expect(read(raw), raw).toBeNull();
    }
    expect(read("ann@example.com\u3002")).toEqual({ local: "ann", domain: "example.com" });
    expect(read("ann@пример.рф")).toEqual({ local: "ann", domain: "xn--e1afmkfd.xn--p1ai" });
  });
});

describe("typo suggestions", () => {
  it.each([
    ["gnail.con", "gmail.com"],
    ["homail.con", "hotmail.com"],
    ["yahho.con", "yahoo.com"],
    ["outlok.cmo", "outlook.com"],
    ["gmial.com", "gmail.com"],
    ["hotmial.com", "hotmail.com"],
  ])("suggests %s -> %s", (domain, suggestion) => {
    expect(checkTypo(domain).suggestion).toBe(suggestion);
  });

  const CORRECT = [
    "hey.com",
    "pm.me",
    "company.io",
    "gmail.com",
    "googlemail.com",
    "yahoo.com",
    "outlook.com",
    "hotmail.com",
    "live.com",
    "msn.com",
    "icloud.com",
    "me.com",
    "mac.com",
    "aol.com",
    "proton.me",
    "protonmail.com",
    "fastmail.com",
    "zoho.com",
    "gmx.de",
    "gmx.net",
    "web.de",
    "yandex.ru",
    "mail.ru",
    "qq.com",
    "163.com",
    "126.com",
    "naver.com",
    "daum.net",
    "orange.fr",
    "free.fr",
    "laposte.net",
    "libero.it",
    "t-online.de",
    "btinternet.com",
    "sky.com",
    "comcast.net",
    "verizon.net",
    "att.net",
    "cox.net",
    "shaw.ca",
    "rogers.com",
    "bigpond.com",
    "xtra.co.nz",
    "seznam.cz",
    "wp.pl",
    "o2.pl",
    "interia.pl",
    "github.com",
    "google.com",
    "apple.com",
    "microsoft.com",
    "amazon.com",
    "stripe.com",
    "cloudflare.com",
    "mozilla.org",
    "wikipedia.org",
    "bbc.co.uk",
    "gov.uk",
    "mit.edu",
    "ox.ac.uk",
    "x.com",
    "duck.com",
    "tuta.com",
    "posteo.de",
    "mailbox.org",
    "hushmail.com",
    "runbox.com",
    "startmail.com",
    "hey.io",
    "mail.com",
  ];

  it(`never suggests for any of ${CORRECT.length} real, correct domains`, () => {
    expect(CORRECT.length).toBeGreaterThanOrEqual(50);
    expect(CORRECT.filter((domain) => checkTypo(domain).suggestion !== null)).toEqual([]);
  });
});
