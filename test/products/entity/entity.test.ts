import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  leiCheckDigits,
  normalizeCountry,
  normalizeUkCompanyNumber,
  readLei,
} from "../../../src/products/entity/identifiers";
import type { EntityResult } from "../../../src/products/entity/result";
import { admin, anotherKey, call, createAccount, accountObject, json, requestRecord } from "../../helpers";
import { installSamples, LEI, makeLei, SAMPLE_VERSION, UNKNOWN_LEI } from "../../entity-samples";

const RESULT_FIELDS = [
  "identifier",
  "identifier_type",
  "found",
  "reason",
  "name",
  "status",
  "status_detail",
  "country",
  "checksum_valid",
  "registration_status",
  "flags",
  "sources",
];

const lookup = (key: string, body: unknown) =>
  call<EntityResult>("/api/v1/entity", json(body, { Authorization: `Bearer ${key}` }));

beforeAll(installSamples);

describe("identifiers", () => {
  it("accepts published LEIs by their ISO 17442 check digits (mod 97-10)", () => {
    // Published LEIs (check digits verified by computation): 5493001KJTIIGC8Y1R12, the LEI documentation and libraries
    // use as their example; HWUPKR0MPOU8FGXBT394 (Apple Inc.); 7LTWFZYICNSX8D621K86 (Deutsche Bank AG).
    for (const lei of ["5493001KJTIIGC8Y1R12", "HWUPKR0MPOU8FGXBT394", "7LTWFZYICNSX8D621K86"]) {
      expect(readLei(lei).checksumValid, lei).toBe(true);
      expect(leiCheckDigits(lei.slice(0, 18))).toBe(lei.slice(18));
    }
  });

  it("rejects altered LEIs: a check digit, a letter, two swapped characters, wrong lengths and characters", () => {
    // A missing character stays missing once the hyphen people write between groups is dropped.
    for (const lei of [
      "5493001KJTIIGC8Y1R13",
      "5493001KJTIIGC8Y1R21",
      "5493001KJTIIGC9Y1R12",
      "4593001KJTIIGC8Y1R12",
      "HWUPKR0MPOU8FGXBT349",
      "5493001KJTIIGC8Y1R1",
      "5493001KJTIIGC8Y1R123",
      "5493001KJTIIGC8Y1R1A",
      "5493001KJT-IGC8Y1R12",
    ]) {
      expect(readLei(lei).checksumValid, lei).toBe(false);
    }
  });

  it("reads LEIs as people write them", () => {
    expect(readLei(" 5493 001k jtii gc8y 1r12 ")).toEqual({
      lei: "5493001KJTIIGC8Y1R12",
      wellFormed: true,
      checksumValid: true,
    });
    expect(readLei("5493001KJTIIGC8Y1R13")).toEqual({
      lei: "5493001KJTIIGC8Y1R13",
      wellFormed: true,
      checksumValid: false,
    });
    expect(readLei("ACME")).toMatchObject({ wellFormed: false, checksumValid: false });
  });

  it("spells UK company numbers as Companies House does", () => {
    const cases: [string, string | null][] = [
      ["sc1234", "SC001234"],
      ["123", "00000123"],
      [" 0990 0001 ", "09900001"],
      ["oc990001", "OC990001"],
      ["NI 12345", "NI012345"],
      ["so1", "SO000001"],
      ["R01234", "R0001234"],
      ["12345678", "12345678"],
      ["123456789", null],
      ["SC1234567", null],
      ["ABC123", null],
      ["S1234", null],
      ["", null],
    ];
    for (const [input, spelled] of cases) expect(normalizeUkCompanyNumber(input), input).toBe(spelled);
  });

  it("reads two-letter countries, UK as GB", () => {
    expect([
      normalizeCountry("gb"),
      normalizeCountry(" UK "),
      normalizeCountry("de"),
      normalizeCountry("G"),
      normalizeCountry("GBR"),
      normalizeCountry(null),
    ]).toEqual(["GB", "GB", "DE", null, null, null]);
  });
});

describe("POST /api/v1/entity", () => {
  it("answers an LEI a register carries with exactly the result fields, for 1 credit", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await lookup(acct.key, { identifier: LEI.widgets.toLowerCase() });
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(RESULT_FIELDS);
    expect(body.data).toEqual({
      identifier: LEI.widgets,
      identifier_type: "lei",
      found: true,
      reason: null,
      name: "SAMPLE WIDGETS LIMITED",
      status: "active",
      status_detail: null,
      country: "GB",
      checksum_valid: true,
      registration_status: "ISSUED",
      flags: [],
      // The record points at a UK company number, so the national register it was checked against is named too.
      sources: expect.arrayContaining([
        { dataset: "gleif-lei", version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}/), coverage: "full" },
      ]),
    });
    expect(Object.keys(body.meta).sort()).toEqual(["cache_hit", "credits_remaining", "credits_used", "request_id"]);
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4, cache_hit: false });
  });

  it("answers a company number in the register's spelling with its status wording", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookup(acct.key, { identifier: "9900003", type: "company_number", country: "gb" });
    expect(body.data).toEqual({
      identifier: "09900003",
      identifier_type: "company_number",
      found: true,
      reason: null,
      name: "SAMPLE TRADING LTD",
      status: "active",
      status_detail: "Active - Proposal to Strike off",
      country: "GB",
      checksum_valid: null,
      registration_status: null,
      flags: [],
      sources: [
        { dataset: "uk-companies-house", version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}/), coverage: "full" },
      ],
    });
    expect(body.meta.credits_used).toBe(1);
    const scottish = await lookup(acct.key, { identifier: "sc990001", type: "company_number", country: "UK" });
    expect(scottish.body.data).toMatchObject({ identifier: "SC990001", found: true, name: "SAMPLE SCOTTISH LIMITED" });
  });

  it("bills a repeat within 7 days nothing, with cache_hit true", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookup(acct.key, { identifier: LEI.holdings });
    const again = await lookup(acct.key, { identifier: ` ${LEI.holdings.toLowerCase()} ` });
    expect(again.body.data.found).toBe(true);
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 4 });
  });

  it("answers unknown, malformed, checksum-failing and unsupported identifiers free with a reason", async () => {
    const acct = await createAccount({ pack: 0 });
    const key2 = await anotherKey(acct);
    const answers = await Promise.all([
      lookup(acct.key, { identifier: UNKNOWN_LEI }),
      lookup(acct.key, { identifier: "ACME LTD" }),
      lookup(acct.key, { identifier: `${LEI.widgets.slice(0, 18)}00` }),
      lookup(key2, { identifier: "HRB 12345", type: "company_number", country: "DE" }),
      lookup(key2, { identifier: "not-a-number", type: "company_number", country: "GB" }),
      lookup(key2, { identifier: "99999999", type: "company_number", country: "GB" }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.map((a) => [a.body.data.found, a.body.data.reason, a.body.data.checksum_valid])).toEqual([
      [false, "unknown_identifier", true],
      // A name is no LEI: not read as a malformed one.
      [false, "invalid_identifier", null],
      [false, "unknown_identifier", false],
      [false, "unsupported_register", null],
      [false, "invalid_identifier", null],
      [false, "unknown_identifier", null],
    ]);
    expect(answers.every((a) => a.body.meta.credits_used === 0 && a.body.meta.cache_hit === false)).toBe(true);
    expect(answers[3]!.body.data).toMatchObject({
      identifier: "HRB 12345",
      country: "DE",
      name: null,
      status: null,
      flags: [],
    });
  });

  it("answers 402 when a register carries the identifier and the balance is empty", async () => {
    const acct = await createAccount({ pack: 0 });
    const { status, body } = await lookup(acct.key, { identifier: LEI.german });
    expect(status).toBe(402);
    expect(body.error.code).toBe("INSUFFICIENT_CREDITS");
  });

  it("flags an ISSUED LEI whose UK company is dissolved in the installed UK register, and only then", async () => {
    const acct = await createAccount({ pack: 10 });
    const key2 = await anotherKey(acct);
    const [dissolved, lapsed, active, elsewhere] = await Promise.all([
      lookup(acct.key, { identifier: LEI.dissolved }),
      lookup(acct.key, { identifier: LEI.lapsedDissolved }),
      lookup(key2, { identifier: LEI.widgets }),
      lookup(key2, { identifier: LEI.german }),
    ]);
    expect(dissolved.body.data).toMatchObject({
      found: true,
      status: "active",
      registration_status: "ISSUED",
      flags: ["dissolved_in_national_register"],
    });
    expect(lapsed.body.data).toMatchObject({ found: true, registration_status: "LAPSED", flags: [] });
    expect(active.body.data.flags).toEqual([]);
    expect(elsewhere.body.data.flags).toEqual([]);
    const company = await lookup(key2, { identifier: "09900006", type: "company_number", country: "GB" });
    expect(company.body.data).toMatchObject({ status: "dissolved", status_detail: "Dissolved", flags: [] });
  });

  it("never returns a registered address", async () => {
    const acct = await createAccount({ pack: 5 });
    const answers = [
      await lookup(acct.key, { identifier: LEI.japanese }),
      await lookup(acct.key, { identifier: "09900009", type: "company_number", country: "GB" }),
    ];
    for (const { body } of answers) {
      expect(body.data.found).toBe(true);
      expect(Object.keys(body.data)).toEqual(RESULT_FIELDS);
      expect(JSON.stringify(body)).not.toMatch(/STREET|BUSINESS PARK|ZZ9|SAMPLETOWN|サンプル市/);
    }
    expect(answers[0]!.body.data.name).toBe("サンプル株式会社");
    const stored = await env.DB.prepare("SELECT * FROM register_entities WHERE identifier = ?")
      .bind("09900009")
      .first();
    expect(Object.keys(stored!).sort()).toEqual([
      "country",
      "generation",
      "identifier",
      "linked_identifier",
      "linked_register",
      "name",
      "register",
      "registration_status",
      "status",
      "status_detail",
    ]);
  });

  it("validates the body: identifier at most 64, country required for company numbers, known types", async () => {
    const acct = await createAccount({ pack: 1 });
    const key2 = await anotherKey(acct);
    const [noCountry, tooLong, badType, longCountry, notJson] = await Promise.all([
      lookup(acct.key, { identifier: "09900001", type: "company_number" }),
      lookup(acct.key, { identifier: "X".repeat(65) }),
      lookup(acct.key, { identifier: "X", type: "vat" }),
      lookup(key2, { identifier: "09900001", type: "company_number", country: "GBR" }),
      call("/api/v1/entity", {
        method: "POST",
        headers: { Authorization: `Bearer ${key2}`, "Content-Type": "application/json" },
        body: "{",
      }),
    ]);
    expect([noCountry, tooLong, badType, longCountry, notJson].map((r) => r.status)).toEqual([422, 422, 422, 422, 422]);
    expect(Object.keys(noCountry.body.error.errors!)).toEqual(["country"]);
    expect(Object.keys(tooLong.body.error.errors!)).toEqual(["identifier"]);
    expect(Object.keys(badType.body.error.errors!)).toEqual(["type"]);
    expect(Object.keys(longCountry.body.error.errors!)).toEqual(["country"]);
    expect((await accountObject(acct.accountId).snapshot()).pack_credits).toBe(1);
  });

  it("needs the entity scope", async () => {
    const acct = await createAccount({ pack: 1, key: { scopes: ["email"] } });
    const { status, body } = await lookup(acct.key, { identifier: LEI.widgets });
    expect(status).toBe(403);
    expect(body.error.code).toBe("KEY_SCOPE_DENIED");
  });

  it("records the credits on the request log", async () => {
    const acct = await createAccount({ pack: 3 });
    const { body } = await lookup(acct.key, { identifier: LEI.retail });
    const logged = await requestRecord(acct.key, String(body.meta.request_id));
    expect(logged.body.data.credits_used).toBe(1);
  });
});

describe("operator routes for registers", () => {
  const adminFetch = (method: string, path: string, body?: unknown, token = "test-admin-token") =>
    call(`/admin/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("lists installed registers in /status/data with the file's version and record count", async () => {
    const acct = await createAccount({ key: { scopes: ["account"] } });
    const { body } = await call<{ datasets: { name: string; version: string; records: number }[] }>(
      "/api/v1/status/data",
      {
        headers: { Authorization: `Bearer ${acct.key}` },
      },
    );
    const registers = body.data.datasets.filter((d) => d.name === "gleif-lei" || d.name === "uk-companies-house");
    expect(registers.map(({ name, version, records }) => ({ name, version, records }))).toEqual([
      { name: "gleif-lei", version: SAMPLE_VERSION, records: 36 },
      { name: "uk-companies-house", version: SAMPLE_VERSION, records: 36 },
    ]);
    const listed = await admin<{ registers: { name: string; installed: boolean }[] }>("GET", "/registers");
    expect(listed.registers.map((r) => [r.name, r.installed])).toEqual([
      ["gleif-lei", true],
      ["uk-companies-house", true],
    ]);
  });

  it("upserts 1,200 rows through multi-row statements under D1's 100-parameter limit", async () => {
    const rows = Array.from({ length: 1_200 }, (_, i) => ({
      identifier: makeLei(`SMPL00BULK${String(i).padStart(8, "0")}`),
      name: `BULK ${i}`,
      status: "active",
      status_detail: null,
      country: "GB",
      registration_status: "ISSUED",
      linked_register: null,
      linked_identifier: null,
    }));
    await admin("POST", "/registers/gleif-lei/rows", { rows: rows.slice(0, 1_000) });
    await admin("POST", "/registers/gleif-lei/rows", { rows: rows.slice(1_000) });
    await admin("POST", "/registers/gleif-lei/rows", { rows: [{ ...rows[5]!, name: "RENAMED" }] });
    const count = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM register_entities WHERE identifier LIKE 'SMPL00BULK%'",
    ).first<{ n: number }>();
    expect(count!.n).toBe(1_200);
    const renamed = await env.DB.prepare("SELECT name FROM register_entities WHERE identifier = ?")
      .bind(rows[5]!.identifier)
      .first<{ name: string }>();
    expect(renamed!.name).toBe("RENAMED");
  });

  it("refuses rows not in the register's spelling, unknown registers and a missing token", async () => {
    const row = {
      identifier: "9900001",
      name: "X",
      status: "active",
      status_detail: null,
      country: "GB",
      registration_status: null,
      linked_register: null,
      linked_identifier: null,
    };
    const misspelled = await adminFetch("POST", "/registers/uk-companies-house/rows", {
      rows: [{ ...row, identifier: "09900001" }, row],
    });
    expect(misspelled.status).toBe(422);
    expect(misspelled.body.error.errors).toEqual({
      "rows.1.identifier": ["Not in the register's spelling: 09900001."],
    });
    expect((await adminFetch("POST", "/registers/fr-sirene/rows", { rows: [row] })).status).toBe(404);
    expect((await adminFetch("POST", "/registers/gleif-lei/complete", { version: "latest", records: 1 })).status).toBe(
      422,
    );
    expect((await adminFetch("GET", "/registers", undefined, "wrong")).status).toBe(401);
  });
});
