import { describe, expect, it } from "vitest";
import { isRefusedAddress, refusalReason } from "../address-guard.mjs";

describe("address guard", () => {
  it.each([
    "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.255", "169.254.1.1", "169.254.169.254",
    "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.168.1.1", "198.18.0.1", "198.19.255.255",
    "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.255", "240.0.0.1", "255.255.255.255",
  ])("refuses the private or reserved IPv4 address %s", (ip) => {
    expect(isRefusedAddress(ip, { allowLoopback: true })).toBe(true);
  });

  it.each(["1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.1", "198.17.255.255", "198.20.0.0", "223.255.255.255"])(
    "allows the public IPv4 address %s",
    (ip) => {
      expect(refusalReason(ip)).toBeNull();
    },
  );

  it.each(["::", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "ff02::1", "2001:db8::25", "64:ff9b::a00:1", "::10.0.0.1", "::ffff:10.0.0.1", "::ffff:a9fe:101", "::ffff:192.168.0.1"])(
    "refuses the private or reserved IPv6 address %s",
    (ip) => {
      expect(isRefusedAddress(ip, { allowLoopback: true })).toBe(true);
    },
  );

  it.each(["2606:4700:4700::1111", "2a00:1450:400c:c00::1b", "::ffff:8.8.8.8", "2001:db9::1", "fec0::1"])("allows the public IPv6 address %s", (ip) => {
    expect(refusalReason(ip)).toBeNull();
  });

  it("allows loopback only when asked to", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(isRefusedAddress(ip)).toBe(true);
      expect(isRefusedAddress(ip, { allowLoopback: false })).toBe(true);
      expect(isRefusedAddress(ip, { allowLoopback: true })).toBe(false);
    }
  });

  it("refuses anything that is not a plain IP address", () => {
    for (const value of ["example.com", "", "fe80::1%eth0", "1.2.3", "localhost", undefined]) {
      expect(isRefusedAddress(value, { allowLoopback: true })).toBe(true);
    }
  });
});
