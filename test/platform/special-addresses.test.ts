/**
 * The one special-purpose address table (src/platform/special-purpose-addresses.json) against the IANA registries as
 * written out in test/fixtures/iana-special-registries.mjs: every block is in the table with IANA's reachability, and
 * every probe is judged the same by the classifier the IP product uses and by the webhook SSRF guard. The SMTP
 * sidecar's guard runs the same probes in workers/smtp-sidecar/test/address-guard.test.mjs.
 */
import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "../../src/platform/private-addresses";
import { parseIp } from "../../src/platform/ip-address";
import { classifyAddress, SPECIAL_RANGES } from "../../src/platform/special-addresses";

/** Classifies address text; null when it is not an address. */
function classify(text: string) {
  const ip = parseIp(text);
  return ip === null ? null : classifyAddress(ip);
}
import { ADDRESS_SPACE, IPV4_SPECIAL, IPV6_SPECIAL, PUBLIC } from "../fixtures/iana-special-registries.mjs";

const ALL = [...IPV4_SPECIAL, ...IPV6_SPECIAL, ...ADDRESS_SPACE];
const PROBES = ALL.flatMap(([cidr, , probes]) => probes.map((probe) => ({ cidr, ...probe })));

describe("the special-purpose table", () => {
  it(
    "holds every block of both IANA special-purpose registries and the address-space blocks, with IANA's " +
      "reachability",
    () => {
      const table = new Map(SPECIAL_RANGES.map((r) => [r.cidr, r.globally_reachable]));
      expect([...table.keys()].sort()).toEqual(ALL.map(([cidr]) => cidr).sort());
      for (const [cidr, reachable] of ALL) expect(table.get(cidr), cidr).toBe(reachable);
      for (const range of SPECIAL_RANGES) expect(range.name && range.rfc, range.cidr).toBeTruthy();
    },
  );

  it.each(PROBES)("$ip ($cidr): reserved $reserved", ({ ip, reserved, cidr }) => {
    const classified = classify(ip)!;
    expect(classified.reserved).toBe(reserved);
    expect(isPrivateAddress(ip)).toBe(reserved);
    if (!cidr.startsWith("::ffff:")) expect(classified.range?.cidr).toBe(cidr);
  });

  it.each(PUBLIC)("%s is public and in no reserved block", (ip) => {
    expect(classify(ip)).toMatchObject({ reserved: false, reservedRange: null });
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it("names the reserved block, and the block an embedded IPv4 address maps to", () => {
    const cases: [string, string, string][] = [
      ["10.1.2.3", "10.0.0.0/8", "Private-Use"],
      ["::ffff:10.1.2.3", "10.0.0.0/8", "Private-Use"],
      ["192.0.0.8", "192.0.0.8/32", "IPv4 dummy address"],
      ["fec0::1", "fec0::/10", "Site-Local Unicast (deprecated)"],
      ["64:ff9b::a00:1", "64:ff9b::a00:0/104", "IPv4-IPv6 Translat. of Private-Use"],
      ["2002:c0a8:101::1", "2002:c0a8::/32", "6to4 of Private-Use"],
      ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "2001:0:a00::/40", "TEREDO of Private-Use"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/32", "TEREDO of Documentation (TEST-NET-1)"],
    ];
    for (const [ip, range, name] of cases)
      expect(classify(ip), ip).toMatchObject({ reserved: true, reservedRange: range, reservedName: name });
  });

  it("lets loopback through the webhook guard only with the development switch, in every spelling", () => {
    for (const ip of ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "[::1]"]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
      expect(isPrivateAddress(ip, true), ip).toBe(false);
    }
    for (const ip of ["10.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::"])
      expect(isPrivateAddress(ip, true), ip).toBe(true);
  });

  it("refuses what is not an address", () => {
    for (const value of ["example.com", "", "fe80::1%eth0", "1.2.3", "010.0.0.1", "1.2.3.4.5", "::1::"]) {
      expect(classify(value)).toBeNull();
      expect(isPrivateAddress(value)).toBe(true);
    }
  });
});
