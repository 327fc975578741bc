// The direct full-table loader (scripts/lib/local-ip-tables.mjs, bench:ip-coverage) on a database migrated like D1, fed
// slices of the installed packages' real CSV files: rows, bookkeeping, and a second call that loads nothing.
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import { packageDatasetVersion, packageFiles } from "../datasets/ip/build.mjs";
import { ROOT } from "./lib/local.mjs";
import { loadFullIpTables, localD1File } from "./lib/local-ip-tables.mjs";

let dir;
let file;
const slices = {};

/** The first `lines` lines of a package file, written under the same name (its family is read from the name). */
async function head(source, lines) {
  const out = [];
  for await (const line of createInterface({ input: createReadStream(source) })) {
    out.push(line);
    if (out.length === lines) break;
  }
  const target = join(dir, source.split("/").pop());
  writeFileSync(target, `${out.join("\n")}\n`);
  return target;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "local-ip-tables-"));
  const d1 = join(dir, "state", "v3", "d1", "miniflare-D1DatabaseObject");
  mkdirSync(d1, { recursive: true });
  const db = new DatabaseSync(join(d1, "0123abcd.sqlite"));
  db.exec("PRAGMA journal_mode = WAL"); // as miniflare keeps its D1 files
  for (const migration of readdirSync(join(ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort())
    db.exec(readFileSync(join(ROOT, "migrations", migration), "utf8"));
  db.close();
  file = localD1File(dir, join(dir, "state"));
  slices["ip-country"] = await Promise.all(packageFiles("ip-country").map((f) => head(f, 2_000)));
  slices["ip-asn"] = await Promise.all(packageFiles("ip-asn").map((f) => head(f, 2_000)));
  slices["ip-city"] = [join(ROOT, "datasets", "ip", "ip-city.sample.csv")];
});

const query = (sql, ...params) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
};

describe("the full IP tables written straight into a local D1 file", () => {
  it("finds the local D1 file and loads each dataset as a generation at the package's version", async () => {
    expect(file).toMatch(/0123abcd\.sqlite$/);
    const lines = [];
    const result = await loadFullIpTables({ file, files: slices, log: (line) => lines.push(line) });
    expect(result).toEqual({ loaded: ["ip-country", "ip-asn", "ip-city"], current: [] });
    const states = query("SELECT name, active, staging, version, records FROM ip_datasets ORDER BY name");
    const version = packageDatasetVersion("ip-country");
    expect(states.map((s) => [s.name, s.active, s.staging, s.version])).toEqual([
      ["ip-asn", 1, null, packageDatasetVersion("ip-asn")],
      ["ip-city", 1, null, packageDatasetVersion("ip-city")],
      ["ip-country", 1, null, version],
    ]);
    for (const d of query("SELECT coverage FROM datasets")) expect(JSON.parse(d.coverage).kind).toBe("full");
    const counts = Object.fromEntries(
      ["ip_country_ranges", "ip_asn_ranges", "ip_city_ranges"].map((t) => [
        t,
        query(`SELECT count(*) AS n FROM ${t}`)[0].n,
      ]),
    );
    expect(states.find((s) => s.name === "ip-country").records).toBe(counts.ip_country_ranges);
    expect(counts.ip_country_ranges).toBeGreaterThan(3_000); // 4,000 lines of both families, overlaps resolved
    expect(query("SELECT name, version, records FROM datasets ORDER BY name").map((d) => d.name)).toEqual([
      "ip-asn",
      "ip-city",
      "ip-country",
    ]);
    // The seek answers read: 1.0.0.1 is in the first rows of the IPv4 file (AU, Cloudflare).
    const key = "00000000000000000000ffff01000001";
    const seek = (table) =>
      query(`SELECT * FROM ${table} WHERE generation = 1 AND start <= ? ORDER BY start DESC LIMIT 1`, key)[0];
    expect([seek("ip_country_ranges").country, seek("ip_asn_ranges").asn]).toEqual(["AU", 13335]);
    expect(lines.join("\n")).toMatch(/ip-country: \d+ rows of @ip-location-db\/geo-whois-asn-country@/);
  });

  it("loads nothing the second time, and a new package version replaces the old generation", async () => {
    expect(await loadFullIpTables({ file, files: slices, log: () => {} })).toEqual({
      loaded: [],
      current: ["ip-country", "ip-asn", "ip-city"],
    });
    const db = new DatabaseSync(file);
    db.prepare("UPDATE ip_datasets SET version = '2020-01-01' WHERE name = 'ip-asn'").run();
    db.close();
    expect(await loadFullIpTables({ file, files: slices, log: () => {} })).toEqual({
      loaded: ["ip-asn"],
      current: ["ip-country", "ip-city"],
    });
    expect(query("SELECT DISTINCT generation FROM ip_asn_ranges").map((r) => r.generation)).toEqual([2]);
    expect(query("SELECT active, version FROM ip_datasets WHERE name = 'ip-asn'")[0]).toEqual({
      active: 2,
      version: packageDatasetVersion("ip-asn"),
    });
    expect(query("PRAGMA journal_mode")[0].journal_mode).toBe("wal");
  });
});
