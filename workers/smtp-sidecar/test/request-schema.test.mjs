import { describe, expect, it } from "vitest";
import { isHostname, isSafeAddress, parseProbeRequest } from "../request-schema.mjs";

const valid = {
  domain: "Example.test",
  mx_hosts: [{ host: "mx1.example.test.", preference: 10 }],
  addresses: ["a.b+c@example.TEST"],
  timeout_ms: 2000,
};

describe("probe request validation", () => {
  it("accepts a well-formed request", () => {
    expect(parseProbeRequest(valid)).toEqual({ ok: true, value: { ...valid, catch_all_probe: true } });
    const told = { ...valid, catch_all_probe: false };
    expect(parseProbeRequest(told)).toEqual({ ok: true, value: told });
    expect(parseProbeRequest({ ...valid, catch_all_probe: "no" })).toEqual({
      ok: false,
      error: "catch_all_probe must be a boolean",
    });
  });

  it.each([
    "a\r\nDATA@example.test",
    "a\nRSET@example.test",
    "a\0@example.test",
    "a b@example.test",
    "<a>@example.test",
    "a>@example.test",
    '"quoted"@example.test',
    ".a@example.test",
    "a..b@example.test",
    "a.@example.test",
    "@example.test",
    "a@other.test",
    "a@example.test>",
    "a@example.test\r\n",
    "é@example.test",
    `${"a".repeat(65)}@example.test`,
  ])("refuses the unsafe address %j", (address) => {
    expect(isSafeAddress(address, "example.test")).toBe(false);
    expect(parseProbeRequest({ ...valid, addresses: [address] }).ok).toBe(false);
  });

  it("checks host names are LDH", () => {
    expect(isHostname("mx-1.example.test")).toBe(true);
    expect(isHostname("xn--bcher-kva.example")).toBe(true);
    for (const name of [
      "-mx.example",
      "mx-.example",
      "mx_1.example",
      "mx..example",
      "mx example",
      "mx\r\n.example",
      "",
      `${"a".repeat(64)}.example`,
    ]) {
      expect(isHostname(name)).toBe(false);
    }
  });

  it.each([
    ["not an object", []],
    ["a bad domain", { ...valid, domain: "exa mple.test" }],
    ["no MX hosts", { ...valid, mx_hosts: [] }],
    ["a bad MX host", { ...valid, mx_hosts: [{ host: "mx\r\nDATA", preference: 1 }] }],
    ["a bad preference", { ...valid, mx_hosts: [{ host: "mx.example.test", preference: -1 }] }],
    ["no addresses", { ...valid, addresses: [] }],
    ["51 addresses", { ...valid, addresses: Array.from({ length: 51 }, (_, i) => `u${i}@example.test`) }],
    ["a timeout below 2000", { ...valid, timeout_ms: 1999 }],
    ["a timeout above 60000", { ...valid, timeout_ms: 60001 }],
    ["a fractional timeout", { ...valid, timeout_ms: 2500.5 }],
  ])("refuses %s", (_, body) => {
    expect(parseProbeRequest(body).ok).toBe(false);
  });

  it("accepts IP literals as MX hosts", () => {
    const body = {
      ...valid,
      mx_hosts: [
        { host: "127.0.0.1", preference: 0 },
        { host: "::1", preference: 1 },
      ],
    };
    expect(parseProbeRequest(body).ok).toBe(true);
  });
});
