/**
 * Unit tests of src/products/email/syntax.ts, driven by the spec ("Email result", "Test addresses", "POST /api/v1/email"
 * rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import { parseAddress, toAsciiHostname } from "../src/products/email/syntax";

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
