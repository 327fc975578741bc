/**
 * The address reference data in its own D1 database (src/db/reference.ts, docs/operations.md "Capacity"): the address
 * tables and the autocomplete index exist in `REFERENCE_ADDRESS` (migrations-address/) and not in `DB`
 * (migrations/0034_address_database.sql), the operator's rows are written there, and lookups, listings and the
 * autocomplete answer from there, while which datasets are installed and in which generation stays in `DB`.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { installReference, installSamples } from "../address-samples";
import { bearer, call, createAccount, json, type TestAccount } from "../helpers";

const ADDRESS_TABLES = ["address_postcodes", "address_premises", "address_streets", "autocomplete_tokens"];
const BOOKKEEPING = ["dataset_generations", "dataset_refresh", "datasets"];

const tablesOf = async (db: D1Database) =>
  (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>()).results.map(
    (r) => r.name,
  );

const countIn = async (db: D1Database, table: string, dataset: string) =>
  (await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE dataset = ?`).bind(dataset).first<{ n: number }>())!.n;

/** Listed in the BAN sample to the premise (test/products/address/premises.test.ts). */
const ADDRESS = { line1: "55 rue du Faubourg Saint-Honoré", locality: "Paris", postcode: "75008", country: "FR" };

let acct: TestAccount;
beforeAll(async () => {
  await installReference();
  await installSamples();
  acct = await createAccount({ pack: 20 });
});

describe("the address database", () => {
  it("holds the address tables and the index; DB holds none of them and keeps the datasets' bookkeeping", async () => {
    const [address, main] = await Promise.all([tablesOf(env.REFERENCE_ADDRESS), tablesOf(env.DB)]);
    for (const table of ADDRESS_TABLES) {
      expect(address, table).toContain(table);
      expect(main, table).not.toContain(table);
    }
    for (const table of BOOKKEEPING) {
      expect(main, table).toContain(table);
      expect(address, table).not.toContain(table);
    }
  });

  it("receives the operator's rows and their index; the dataset is listed in DB", async () => {
    for (const table of ["address_postcodes", "address_streets", "autocomplete_tokens"])
      expect(await countIn(env.REFERENCE_ADDRESS, table, "uk-os-open-names"), table).toBeGreaterThan(0);
    expect(await countIn(env.REFERENCE_ADDRESS, "address_premises", "fr-ban")).toBeGreaterThan(0);
    const listed = await env.DB.prepare("SELECT version FROM datasets WHERE name = 'fr-ban'").first<{
      version: string;
    }>();
    expect(listed?.version).toBe("2026-11-23-sample");
  });

  it("answers a lookup to the premise and an autocomplete from its rows", async () => {
    const { status, body } = await call<Record<string, any>>(
      "/api/v1/address",
      json({ address: ADDRESS }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(status).toBe(200);
    expect(body.data.precision).toBe("premise");
    const suggested = await call<Record<string, any>>(
      `/api/v1/address/autocomplete?${new URLSearchParams({ q: "55 rue du faubourg", country: "FR" })}`,
      bearer(acct.key),
    );
    expect(suggested.body.data.suggestions.map((s: { precision: string }) => s.precision)).toEqual(["premise"]);
  });

  it("stops answering from rows it no longer holds: the rows are read there, not in DB", async () => {
    await env.REFERENCE_ADDRESS.prepare(
      "DELETE FROM address_premises WHERE dataset = 'fr-ban' AND number = '55'",
    ).run();
    const { body } = await call<Record<string, any>>(
      "/api/v1/address",
      json({ address: ADDRESS }, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(body.data.precision).toBe("street");
  });
});
