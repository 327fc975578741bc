import { applyD1Migrations, env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { findPremises } from "../../src/products/address/premise-store";
import { findPostcodes, findStreets, listStreets, removeDataset } from "../../src/products/address/store";
import { addressRefreshable } from "../../src/products/address/refresh";
import { readHits } from "../../src/products/address/autocomplete/search";
import { parseQuery } from "../../src/products/address/autocomplete/normalise";
import { findEntities, removeRegister } from "../../src/products/entity/store";
import { entityRefreshable } from "../../src/products/entity/refresh";

/**
 * migrations/0033_reference_keys.sql: the address tables' and the autocomplete index's primary keys lead with
 * (dataset, generation) and lose their (dataset, generation) index, `register_entities` becomes WITHOUT ROWID. Every
 * row is kept, and every read of the product code (lookups, listings, the autocomplete's prefix ranges and premise
 * check, the refresh's sweep, a dataset's removal) still seeks a range of a key rather than scanning a table.
 */
const db = env.MIGRATION_DB;
const all = async (sql: string) => (await db.prepare(sql).all()).results;

const ROWS: Record<string, Record<string, unknown>[]> = {
  address_postcodes: [
    ["GB", "M1 1AA", "uk-onspd", 0, "manchester", "Manchester", 0],
    ["GB", "M1 1AA", "uk-onspd", 2, "manchester", "Manchester", 1],
    ["FR", "75001", "fr-postcodes", 0, "", null, 0],
  ].map(([country, postcode, dataset, generation, locality_key, locality, alias]) => ({
    country,
    postcode,
    dataset,
    generation,
    locality_key,
    locality,
    region: "R",
    region_code: "R1",
    subregion: null,
    subregion_code: null,
    latitude: 53.5,
    longitude: -2.2,
    alias,
  })),
  address_streets: [
    { country: "FR", postcode: "75001", street_key: "rue de rivoli", dataset: "fr-ban", generation: 3 },
    { country: "FR", postcode: "75001", street_key: "rue de rivoli", dataset: "fr-ban", generation: 4 },
  ].map((r) => ({ ...r, street: "Rue de Rivoli", locality: "Paris" })),
  address_premises: ["1", "1 BIS", "2"].map((number, i) => ({
    country: "FR",
    postcode: "75001",
    street_key: "rue de rivoli",
    number,
    dataset: "fr-ban",
    generation: i,
  })),
  autocomplete_tokens: [
    ["rivoli", "street", "Rue de Rivoli", 0],
    ["rivoli", "street", "Rue de Rivoli", 1],
    ["75001", "postcode", "Paris", 1],
  ].map(([token, kind, label, generation]) => ({
    country: "FR",
    token,
    kind,
    postcode: "75001",
    label,
    dataset: "fr-ban",
    generation,
    street_key: kind === "street" ? "rue de rivoli" : "",
    locality: "Paris",
    region: null,
    search: "rue de rivoli 75001 paris",
  })),
  register_entities: [
    ["gleif-lei", 0, "5493001KJTIIGC8Y1R12", "uk-companies-house", "00445790"],
    ["uk-companies-house", 1, "00445790", null, null],
  ].map(([register, generation, identifier, linked_register, linked_identifier]) => ({
    register,
    generation,
    identifier,
    name: "Example",
    status: "active",
    status_detail: null,
    country: "GB",
    registration_status: "ISSUED",
    linked_register,
    linked_identifier,
  })),
};

const insert = (table: string, row: Record<string, unknown>) =>
  db
    .prepare(
      `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
        .map(() => "?")
        .join(", ")})`,
    )
    .bind(...Object.values(row));

const sorted = async (table: string) => {
  const rows = await all(`SELECT * FROM ${table}`);
  return rows.map((r) => JSON.stringify(r)).sort();
};

describe("migration 0033_reference_keys", () => {
  beforeAll(async () => {
    const index = env.TEST_MIGRATIONS.findIndex((m) => m.name === "0033_reference_keys.sql");
    expect(index).toBeGreaterThan(0);
    await applyD1Migrations(db, env.TEST_MIGRATIONS.slice(0, index));
    await db.batch(Object.entries(ROWS).flatMap(([table, rows]) => rows.map((row) => insert(table, row))));
    // Up to 0033 itself: 0034 moves these tables to their own database (migrations-address/).
    await applyD1Migrations(db, env.TEST_MIGRATIONS.slice(0, index + 1));
  });

  it("keeps every row of the rebuilt tables", async () => {
    for (const [table, rows] of Object.entries(ROWS))
      expect(await sorted(table)).toEqual(rows.map((r) => JSON.stringify(r)).sort());
  });

  it("leads the address keys with (dataset, generation) and drops the indexes on them", async () => {
    const tables = [
      "address_postcodes",
      "address_streets",
      "address_premises",
      "autocomplete_tokens",
      "register_entities",
    ];
    for (const table of tables) {
      const key = await all(`SELECT name FROM pragma_table_info('${table}') WHERE pk > 0 ORDER BY pk`);
      const expected = table === "register_entities" ? ["register", "generation"] : ["dataset", "generation"];
      expect(key.slice(0, 2).map((r) => r.name)).toEqual(expected);
      // WITHOUT ROWID: no rowid column, and no index: the table's one B-tree is its key's.
      await expect(db.prepare(`SELECT rowid FROM ${table}`).all()).rejects.toThrow(/rowid/);
      expect(await all(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '${table}'`)).toEqual([]);
    }
  });
});

/** Every statement the product code prepares on `target` (`env.DB` or the address database), with its parameters. */
function recording(target: D1Database = env.DB) {
  const statements: { sql: string; params: unknown[]; on: D1Database }[] = [];
  const d1 = new Proxy(target, {
    get(target, property) {
      if (property === "prepare")
        return (sql: string) => {
          const entry = { sql, params: [] as unknown[], on: target };
          statements.push(entry);
          const prepared = target.prepare(sql);
          return new Proxy(prepared, {
            get(statement, name) {
              if (name === "bind")
                return (...params: unknown[]) => ((entry.params = params), statement.bind(...params));
              const value = Reflect.get(statement, name);
              return typeof value === "function" ? value.bind(statement) : value;
            },
          });
        };
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { d1, orm: drizzle(d1), statements };
}

const REFERENCE = /\b(address_postcodes|address_streets|address_premises|autocomplete_tokens|register_entities)\b/;

/** The query plan's lines of each recorded statement that reads a reference table. */
async function plans(statements: { sql: string; params: unknown[]; on: D1Database }[]) {
  const out: { sql: string; plan: string[] }[] = [];
  for (const { sql, params, on } of statements.filter((s) => REFERENCE.test(s.sql))) {
    const { results } = await on
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...params)
      .all<{ detail: string }>();
    out.push({ sql, plan: results.map((r) => r.detail) });
  }
  return out;
}

describe("every read of a reference table seeks its key", () => {
  it("lookups, listings and the autocomplete read a (dataset, generation) range of the address keys", async () => {
    const { d1, orm, statements } = recording(env.REFERENCE_ADDRESS);
    const data = { db: orm, generations: new Map([["uk-os-open-names", 2]]) };
    await findPostcodes(data, [{ country: "GB", postcode: "M1 1AA" }]);
    await findStreets(data, "GB", ["M1 1AA"], ["oxford road"]);
    await listStreets(data, { country: "GB", postcode: "M1 1AA", datasetNames: ["uk-os-open-names"], limit: 5 });
    await findPremises(data, "FR", ["fr-ban"], [{ postcode: "75001", keys: ["rue de rivoli"], number: "1" }]);
    const installed = new Map([
      ["fr-postcodes", 0],
      ["fr-ban", 3],
    ]);
    await readHits(d1, { country: "FR", query: parseQuery("12 rue de riv"), installed });
    const planned = await plans(statements);
    expect(planned).toHaveLength(5);
    for (const { sql, plan } of planned) {
      expect(
        plan.filter((line) => REFERENCE.test(line) && line.startsWith("SCAN")),
        sql,
      ).toEqual([]);
      expect(plan.join("\n"), sql).toMatch(/USING PRIMARY KEY \(dataset=\? AND generation=\? AND country=\? AND/);
    }
    // The autocomplete: each dataset's range of the prefix, read in key order (no sort but the union's).
    const ranges = planned[4]?.plan.filter((line) => /token>\? AND token<\?/.test(line)) ?? [];
    expect(ranges).toHaveLength(2); // fr-postcodes and fr-ban
    for (const line of ranges)
      expect(line).toBe(
        "SEARCH t USING PRIMARY KEY (dataset=? AND generation=? AND country=? AND token>? AND token<?)",
      );
    // The house number of a suggestion: one row of address_premises by its whole key.
    const premise = /SEARCH p USING PRIMARY KEY \(dataset=\? AND generation=\? AND .*number=\?\)/;
    expect(planned[4]?.plan.join("\n")).toMatch(premise);
  });

  it("the entity lookup reads one register generation by key, and the linked record by its whole key", async () => {
    const { orm, statements } = recording();
    await findEntities(orm, "gleif-lei", ["5493001KJTIIGC8Y1R12"]);
    const [read] = await plans(statements);
    const key = /USING PRIMARY KEY \(register=\? AND generation=\? AND identifier=\?\)/;
    expect(read?.plan.filter((line) => key.test(line))).toHaveLength(2);
  });

  it("the sweeps and removals pick rows by key, within the dataset's range", async () => {
    const { d1, orm, statements } = recording();
    const address = recording(env.REFERENCE_ADDRESS);
    const ban = addressRefreshable.find((d) => d.name === "fr-ban")!;
    await ban.table.sweep(d1, 1_000, address.d1);
    await entityRefreshable.find((d) => d.name === "gleif-lei")!.table.sweep(d1, 1_000, d1);
    await removeDataset({ ...env, REFERENCE_ADDRESS: address.d1 }, "uk-os-open-names", 1_000);
    await removeRegister(orm, "uk-companies-house", 1_000);
    const planned = await plans([...statements, ...address.statements]);
    expect(planned.length).toBeGreaterThanOrEqual(10);
    for (const { sql, plan } of planned) {
      expect(
        plan.filter((line) => REFERENCE.test(line) && line.startsWith("SCAN")),
        sql,
      ).toEqual([]);
      expect(plan.join("\n"), sql).toMatch(/SEARCH \w+ USING PRIMARY KEY \((dataset|register)=\?/);
    }
  });
});

describe("the autocomplete's candidates are those of one range over every dataset", () => {
  // Two datasets of one country, more candidates than a read keeps (200), interleaved in token order, some in a
  // generation answers do not read and some without the query's other word.
  beforeAll(async () => {
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < 420; i++) {
      const dataset = i % 3 === 0 ? "uk-onspd" : "uk-os-open-names";
      const generation = dataset === "uk-onspd" ? 0 : i % 7 === 0 ? 1 : 2;
      const kind = i % 2 ? "street" : "postcode";
      statements.push(
        env.REFERENCE_ADDRESS.prepare(
          `INSERT INTO autocomplete_tokens (country, token, kind, postcode, label, dataset, generation, street_key,
             locality, region, search) VALUES ('GB', ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, NULL, ?8)`,
        ).bind(
          `MILL${String(i % 150).padStart(3, "0")}`,
          kind,
          `M${i % 5} 1AA`,
          `Mill ${i}`,
          dataset,
          generation,
          kind === "street" ? `MILL ${i}` : "",
          i % 11 ? `MILL ${i} LANE` : `MILL ${i}`,
        ),
      );
    }
    await env.REFERENCE_ADDRESS.batch(statements);
  });

  it("reads the same candidates in the same order as the range the key led by the country gave", async () => {
    const query = parseQuery("lane mill0");
    // The read before migration 0033: one range of (country, token), in that key's order.
    const { results: expected } = await env.REFERENCE_ADDRESS.prepare(
      `SELECT t.kind, t.postcode, t.label, t.street_key, t.locality, t.region, t.dataset, 0 AS premise
       FROM autocomplete_tokens t WHERE t.country = 'GB' AND t.token >= 'MILL0' AND t.token < ?1
         AND (t.dataset, t.generation) IN (VALUES ('uk-onspd', 0), ('uk-os-open-names', 2))
         AND (' ' || t.search) LIKE '% LANE%'
       ORDER BY t.country, t.token, t.kind, t.postcode, t.label, t.dataset, t.generation LIMIT 200`,
    )
      .bind("MILL0\u{10FFFF}")
      .all();
    expect(expected).toHaveLength(200);
    expect(new Set(expected.map((r) => r.dataset))).toEqual(new Set(["uk-onspd", "uk-os-open-names"]));
    const installed = new Map([
      ["uk-onspd", 0],
      ["uk-os-open-names", 2],
    ]);
    expect(await readHits(env.REFERENCE_ADDRESS, { country: "GB", query, installed })).toEqual(expected);
  });
});
