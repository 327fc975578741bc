import { createReadStream, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { SAMPLES, registerRows } from "../../scripts/import-register.mjs";
import { readLei } from "../../src/products/entity/identifiers.ts";
import { REGISTERS } from "../../src/products/entity/registers.ts";

const ROW_FIELDS = [
  "identifier",
  "name",
  "status",
  "status_detail",
  "country",
  "registration_status",
  "linked_register",
  "linked_identifier",
];

async function readSample(register, highWaterMark = 1 << 16) {
  const { file } = SAMPLES.find((s) => s.register === register);
  const rows = [];
  let skipped = 0;
  for await (const part of registerRows(register, createReadStream(file, { encoding: "utf8", highWaterMark }))) {
    rows.push(...part.rows);
    skipped += part.skipped;
  }
  return { rows, skipped };
}

const fromText = (text) => Readable.from([text]);

describe("shipped register samples", () => {
  it("read completely, whatever the read size", async () => {
    for (const { register } of SAMPLES) {
      const whole = await readSample(register);
      expect(whole.rows.length, register).toBeGreaterThanOrEqual(30);
      expect(whole.skipped).toBe(0);
      for (const size of [1, 7, 64, 1000])
        expect((await readSample(register, size)).rows, `${register} in ${size}-byte reads`).toEqual(whole.rows);
    }
  });

  it("keep nothing but the register fields: no address ever leaves the file", async () => {
    for (const { register } of SAMPLES) {
      for (const row of (await readSample(register)).rows) {
        expect(Object.keys(row).sort()).toEqual([...ROW_FIELDS].sort());
        expect(JSON.stringify(row)).not.toMatch(/SAMPLE (STREET|WYND|ROAD|SQUARE|BUSINESS PARK)|ZZ9 \dZZ|SAMPLETOWN/);
      }
    }
  });

  it(
    "carry only checksum-valid LEIs, some ISSUED and some LAPSED, several pointing at UK company " + "numbers",
    async () => {
      const { rows } = await readSample("gleif-lei");
      // In the register's spelling, as lookups read them.
      const valid = (id) => readLei(id).checksumValid && readLei(id).lei === id;
      expect(rows.filter((r) => !valid(r.identifier))).toEqual([]);
      const statuses = new Set(rows.map((r) => r.registration_status));
      expect([...statuses]).toEqual(expect.arrayContaining(["ISSUED", "LAPSED"]));
      expect(rows.filter((r) => r.linked_register === "uk-companies-house").length).toBeGreaterThan(5);
    },
  );

  it("link an ISSUED LEI to a company the UK sample holds as dissolved", async () => {
    const uk = new Map((await readSample("uk-companies-house")).rows.map((r) => [r.identifier, r]));
    const { rows } = await readSample("gleif-lei");
    const flagged = rows.filter(
      (r) => r.registration_status === "ISSUED" && uk.get(r.linked_identifier)?.status === "dissolved",
    );
    expect(flagged.map((r) => r.name)).toContain("SAMPLE DISSOLVED LIMITED");
  });

  it("spell linked UK numbers the register's way (padding, case, spaces)", async () => {
    const { rows } = await readSample("gleif-lei");
    const linked = Object.fromEntries(rows.map((r) => [r.name, r.linked_identifier]));
    expect(linked["SAMPLE HOLDINGS PLC"]).toBe("09900002"); // "9900002" in the file
    expect(linked["SAMPLE PARTNERS LLP"]).toBe("OC990001"); // "oc990001"
    expect(linked["SAMPLE HIGHLAND DISTILLERS LIMITED"]).toBe("SC990002"); // "SC 990002"
    expect(linked["SAMPLE BEISPIEL GMBH"]).toBe("HRB 99001"); // another register's number: kept as published
  });

  it("read the Companies House header with its leading spaces and map statuses", async () => {
    expect(readFileSync(SAMPLES.find((s) => s.register === "uk-companies-house").file, "utf8")).toMatch(
      /^CompanyName, CompanyNumber,/,
    );
    const rows = new Map((await readSample("uk-companies-house")).rows.map((r) => [r.identifier, r]));
    expect(rows.get("09900006")).toMatchObject({ status: "dissolved", status_detail: "Dissolved", country: "GB" });
    expect(rows.get("09900003")).toMatchObject({ status: "active", status_detail: "Active - Proposal to Strike off" });
    expect(rows.get("09900004")).toMatchObject({ status: "liquidation" });
    expect(rows.get("09900005")).toMatchObject({ status: "insolvency", status_detail: "In Administration" });
    expect(rows.get("09900008")?.name).toBe('SAMPLE "QUOTED" & CO, LIMITED');
  });
});

describe("register files", () => {
  it("take the publication date from the published file names", () => {
    const { "gleif-lei": gleif, "uk-companies-house": uk } = REGISTERS;
    expect(gleif.versionFromFileName("/data/20261122-0800-gleif-goldencopy-lei2-golden-copy.csv")).toBe("2026-11-22");
    expect(uk.versionFromFileName("BasicCompanyDataAsOneFile-2026-11-01.csv")).toBe("2026-11-01");
    expect(uk.versionFromFileName("BasicCompanyData-2026-11-01-part1_7.csv")).toBe("2026-11-01");
    expect(uk.versionFromFileName("companies.csv")).toBeNull();
  });

  it("refuse a file that lacks the register's columns, and skip rows without a usable identifier", async () => {
    await expect(async () => {
      for await (const _ of registerRows("gleif-lei", fromText("CompanyName, CompanyNumber\nX,1\n")));
    }).rejects.toThrow(/lacks LEI/);
    const parts = [];
    const csv =
      "CompanyName, CompanyNumber,CompanyStatus,DissolutionDate\nA LTD,123,Active,\nB LTD,not a number!,Active,\n";
    for await (const part of registerRows("uk-companies-house", fromText(csv))) parts.push(part);
    expect(parts.flatMap((p) => p.rows).map((r) => r.identifier)).toEqual(["00000123"]);
    expect(parts.reduce((n, p) => n + p.skipped, 0)).toBe(1);
  });
});
