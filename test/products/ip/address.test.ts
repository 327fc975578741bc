/**
 * Address parsing and spelling (src/platform/ip-address.ts): every way people write an address reads as one address,
 * IPv6 is written back as RFC 5952 says, IPv4-mapped IPv6 is IPv4, and range keys sort in numeric order.
 */
import { describe, expect, it } from "vitest";
import {
  blockHolding,
  formatCidr,
  formatIp,
  parseCidr,
  parseIp,
  rangeKey,
  rangeToCidrs,
} from "../../../src/platform/ip-address";
import { ipKey } from "../../../src/products/ip/lookup";

const spell = (text: string) => {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
};

describe("ip addresses", () => {
  it("reads IPv4-mapped and IPv4-compatible spellings, brackets and spaces", () => {
    expect(spell("::ffff:8.8.8.8")).toBe("8.8.8.8");
    expect(spell("::FFFF:808:808")).toBe("8.8.8.8");
    expect(spell("0:0:0:0:0:ffff:0808:0808")).toBe("8.8.8.8");
    expect(spell(" [::ffff:1.1.1.1] ")).toBe("1.1.1.1");
    expect(parseIp("::ffff:8.8.8.8")).toEqual(parseIp("8.8.8.8"));
    // IPv4-compatible (deprecated) stays IPv6: it is not the IPv4 address.
    expect(parseIp("::8.8.8.8")).toEqual({ version: 6, value: 0x08080808n });
  });

  it("writes IPv6 as RFC 5952 does: lower case, no leading zeros, the longest zero run as ::", () => {
    const cases: [string, string][] = [
      ["2001:4860:4860:0000:0000:0000:0000:8888", "2001:4860:4860::8888"],
      ["2001:4860:4860:0:0:0:0:8888", "2001:4860:4860::8888"],
      ["2001:4860:4860::8888", "2001:4860:4860::8888"],
      ["2606:4700:4700:0:0:0:0:1111", "2606:4700:4700::1111"],
      ["2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
      ["0000:0000:0000:0000:0000:0000:0000:0001", "::1"],
      ["0:0:0:0:0:0:0:0", "::"],
      ["fe80:0000:0000:0000:0204:61ff:fe9d:f156", "fe80::204:61ff:fe9d:f156"],
      ["2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:db8:85a3::8a2e:370:7334"],
      ["2001:db8::0:1", "2001:db8::1"],
      ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
      ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"],
    ];
    for (const [input, expected] of cases) expect(spell(input), input).toBe(expected);
  });

  it("refuses what is not an address", () => {
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.256",
      "01.2.3.4",
      "1.2.3.4/24",
      "::1::",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "fe80::1%eth0",
      "g::1",
      "example.com",
      "::ffff:1.2.3",
      ":::",
    ]) {
      expect(parseIp(bad), bad).toBeNull();
    }
  });

  it("keys the repeat window by the normalized address", () => {
    expect(ipKey("::ffff:8.8.8.8")).toBe(ipKey("8.8.8.8"));
    expect(ipKey("2001:4860:4860:0:0:0:0:8888")).toBe(ipKey("2001:4860:4860::8888"));
    expect(ipKey("2001:4860:4860::8888")).not.toBe(ipKey("2001:4860:4860::8844"));
    expect(ipKey(" nope ")).toBe("invalid:nope");
  });

  it("keys both families in one space whose text order is numeric order", () => {
    const order = [
      "::",
      "::1",
      "0.0.0.0",
      "1.1.1.1",
      "8.8.8.8",
      "255.255.255.255",
      "2001:db8::",
      "2606:4700:4700::1111",
      "ffff::",
    ];
    const keys = order.map((text) => rangeKey(parseIp(text)!));
    expect([...keys].sort()).toEqual(keys);
    expect(keys.every((k) => /^[0-9a-f]{32}$/.test(k))).toBe(true);
    expect(rangeKey(parseIp("8.8.8.8")!)).toBe("00000000000000000000ffff08080808");
  });

  it("reads CIDR blocks, clearing host bits, and cuts ranges into the fewest blocks", () => {
    expect(formatCidr(parseCidr("10.1.2.3/8")!)).toBe("10.0.0.0/8");
    expect(formatCidr(parseCidr("::ffff:10.0.0.0/104")!)).toBe("10.0.0.0/8");
    expect(formatCidr(parseCidr("2001:db8::1/32")!)).toBe("2001:db8::/32");
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/8/8", "x/8"])
      expect(parseCidr(bad), bad).toBeNull();
    const cidrs = (a: string, b: string) => rangeToCidrs(parseIp(a)!, parseIp(b)!).map(formatCidr);
    expect(cidrs("1.0.0.0", "1.0.0.255")).toEqual(["1.0.0.0/24"]);
    expect(cidrs("6.0.0.0", "8.10.5.255")).toEqual([
      "6.0.0.0/7",
      "8.0.0.0/13",
      "8.8.0.0/15",
      "8.10.0.0/22",
      "8.10.4.0/23",
    ]);
    expect(cidrs("0.0.0.0", "255.255.255.255")).toEqual(["0.0.0.0/0"]);
    expect(cidrs("2001:4860::", "2001:4860:ffff:ffff:ffff:ffff:ffff:ffff")).toEqual(["2001:4860::/32"]);
    expect(formatCidr(blockHolding(parseIp("6.0.0.0")!, parseIp("8.10.5.255")!, parseIp("8.8.8.8")!))).toBe(
      "8.8.0.0/15",
    );
  });
});
