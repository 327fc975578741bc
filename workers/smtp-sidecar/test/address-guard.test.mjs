import { describe, expect, it } from "vitest";
import { refusalReason } from "../address-guard.mjs";

/** @param {string} ip @param {{ allowLoopback?: boolean }} [options] */
const isRefusedAddress = (ip, options) => refusalReason(ip, options) !== null;
import { ADDRESS_SPACE, IPV4_SPECIAL, IPV6_SPECIAL, PUBLIC } from "../../../test/fixtures/iana-special-registries.mjs";

// The same IANA blocks and probes as the Worker's test/platform/special-addresses.test.ts: both guards read one table.
const PROBES = [...IPV4_SPECIAL, ...IPV6_SPECIAL, ...ADDRESS_SPACE].flatMap(([cidr, , probes]) =>
  probes.map((probe) => ({ cidr, ...probe })),
);

describe("address guard", () => {
  it.each(PROBES)("$ip ($cidr): refused $reserved", ({ ip, reserved }) => {
    expect(isRefusedAddress(ip, { allowLoopback: false })).toBe(reserved);
  });

  it.each(PUBLIC)("allows the public address %s", (ip) => {
    expect(refusalReason(ip)).toBeNull();
  });

  it("names the block that refuses an address", () => {
    expect(refusalReason("10.0.0.1")).toBe("reserved address (Private-Use, 10.0.0.0/8)");
    expect(refusalReason("2002:c0a8:101::1")).toBe("reserved address (6to4, 2002::/16)");
  });

  it("allows loopback only when asked to", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(isRefusedAddress(ip)).toBe(true);
      expect(isRefusedAddress(ip, { allowLoopback: false })).toBe(true);
      expect(isRefusedAddress(ip, { allowLoopback: true })).toBe(false);
    }
    expect(isRefusedAddress("64:ff9b::7f00:1", { allowLoopback: true })).toBe(true);
  });

  it("refuses anything that is not a plain IP address", () => {
    for (const value of ["example.com", "", "fe80::1%eth0", "1.2.3", "localhost", undefined]) {
      expect(isRefusedAddress(value, { allowLoopback: true })).toBe(true);
    }
  });
});
