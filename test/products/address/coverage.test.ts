/**
 * Coverage of the address datasets (docs/address.md, "Coverage"): a postcode no installed dataset holds is
 * `unknown_postcode` only when one of them is the publisher's complete file for the country; otherwise the address is
 * outside what is installed and answers `format_only` with `reason: "not_covered"`, free. `/status/data` shows each
 * dataset's coverage as the importer recorded it.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADDRESS_DATASETS } from "../../../src/products/address/datasets";
import {
  installReference,
  installRows,
  installSamples,
  SAMPLE_COVERAGE,
  SAMPLE_VERSION,
  sampleRows,
} from "../../address-samples";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";

let acct: TestAccount;
let key: string;
beforeAll(async () => {
  await installReference();
  await installSamples();
  acct = await createAccount({ pack: 100 });
});
beforeEach(async () => void (key = await anotherKey(acct)));

const lookup = (body: unknown, as = key) =>
  call<Record<string, any>>("/api/v1/address", json(body, { Authorization: `Bearer ${as}` }));
const datasetsOf = (body: { data: Record<string, any> }) =>
  (body.data.sources as { dataset: string }[]).map((s) => s.dataset);

const NOT_COVERED = {
  valid: true,
  verification: "format_only",
  reason: "not_covered",
  precision: "country",
  postcode_format_valid: true,
  postcode_found: null,
  risk_score: 30,
  risk_components: { unverifiable: 30 },
  risk_level: "medium",
};

describe("coverage in /status/data", () => {
  it(
    "each address dataset shows the coverage its installer recorded: the packages' partial files, the samples as " +
      "samples",
    async () => {
      const { body } = await call<{ datasets: { name: string; version: string; coverage: unknown }[] }>(
        "/api/v1/status/data",
        bearer(acct.key),
      );
      const of = (name: string) => body.data.datasets.find((d) => d.name === name)!;
      expect(of("de-postcodes").coverage).toEqual(ADDRESS_DATASETS["de-postcodes"].coverage);
      expect(of("de-postcodes").coverage).toMatchObject({ kind: "partial", countries: ["DE"] });
      expect(of("us-zip-codes").coverage).toMatchObject({ kind: "partial", countries: ["US"] });
      expect(of("uk-onspd")).toMatchObject({ version: SAMPLE_VERSION, coverage: { kind: "sample" } });
      expect(of("fr-ban").coverage).toMatchObject({ kind: "sample" });
    },
  );
});

describe("a postcode outside every installed dataset's coverage", () => {
  it(
    "221B Baker Street, London NW1 6XE against the UK sample: format_only, not_covered, free, citing the " + "sample",
    async () => {
      const fresh = await createAccount({ pack: 5 });
      const { status, body } = await lookup({ address: "221B Baker Street, London NW1 6XE", country: "GB" }, fresh.key);
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        ...NOT_COVERED,
        address: { line1: "221B Baker Street", locality: "London", postcode: "NW1 6XE" },
        geo: null,
      });
      expect(datasetsOf(body).sort()).toEqual([
        "address-countries",
        "postcode-formats",
        "uk-onspd",
        "uk-os-open-names",
      ]);
      // The sample was consulted and does not hold NW1 6XE: it decided nothing, and says so.
      expect(body.data.sources).toContainEqual({
        dataset: "uk-onspd",
        version: SAMPLE_VERSION,
        coverage: "sample",
        decided: false,
      });
      expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
    },
  );

  it("1 Deansgate, Manchester M3 1AZ: format_only, not invalid", async () => {
    const { body } = await lookup({ address: "1 Deansgate, Manchester M3 1AZ", country: "GB" });
    expect(body.data).toMatchObject(NOT_COVERED);
  });

  it("a postcode the sample holds is still verified, billed, and says a sample decided it", async () => {
    const { postcodes } = await sampleRows("uk-onspd");
    const held = postcodes.find((p) => p.country === "GB" && p.latitude !== null)!;
    const fresh = await createAccount({ pack: 5 });
    const { body } = await lookup(
      { address: { line1: "1 Any Street", locality: "London", postcode: held.postcode, country: "GB" } },
      fresh.key,
    );
    // A synthetic row answered: `verified` keeps its meaning, and the reason says whose word it is.
    expect(body.data).toMatchObject({ postcode_found: true, verification: "verified", reason: "sample_data" });
    expect(body.data.sources).toContainEqual({ dataset: "uk-onspd", version: SAMPLE_VERSION, coverage: "sample" });
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4 });
  });

  it(
    "Platz der Republik 1, 11011 Berlin (a Großkunden code OpenStreetMap's list lacks): format_only, not_covered, " +
      "not invalid",
    async () => {
      const fresh = await createAccount({ pack: 5 });
      const { body } = await lookup({ address: "Platz der Republik 1, 11011 Berlin", country: "DE" }, fresh.key);
      expect(body.data).toMatchObject({
        ...NOT_COVERED,
        address: { line1: "Platz der Republik 1", locality: "Berlin", postcode: "11011" },
      });
      expect(datasetsOf(body)).toContain("de-postcodes");
      expect(body.meta.credits_used).toBe(0);
    },
  );

  it("a country no dataset covers: format_only with reason not_covered, free", async () => {
    const { body } = await lookup({ address: "Via Roma 1, 00184 Roma", country: "IT" });
    expect(body.data).toMatchObject(NOT_COVERED);
    expect(body.meta.credits_used).toBe(0);
  });

  it("a malformed postcode is still invalid: its form is checked whatever is installed", async () => {
    const { body } = await lookup({
      address: { line1: "Platz der Republik 1", locality: "Berlin", postcode: "1101", country: "DE" },
    });
    expect(body.data).toMatchObject({
      verification: "invalid",
      reason: "invalid_postcode_format",
      postcode_found: null,
    });
  });

  it("the batch answers the same and bills only the verified address", async () => {
    const fresh = await createAccount({ pack: 5 });
    const items = [
      { address: "221B Baker Street, London NW1 6XE", country: "GB" },
      { address: "Platz der Republik 1, 11011 Berlin", country: "DE" },
      { address: "1 Main St, Springfield, IL 62701", country: "US" },
    ];
    const { body } = await call<Record<string, any>>(
      "/api/v1/address/batch",
      json({ addresses: items }, { Authorization: `Bearer ${fresh.key}` }),
    );
    expect(body.data.results.map((r: any) => [r.data.verification, r.data.reason, r.meta.credits_used])).toEqual([
      ["format_only", "not_covered", 0],
      ["format_only", "not_covered", 0],
      ["verified", null, 1],
    ]);
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 4 });
  });
});

describe("a dataset recorded as the publisher's complete file", () => {
  it("makes a postcode it lacks unknown_postcode (a confident negative), free", async () => {
    const { postcodes } = await sampleRows("uk-onspd");
    // The same rows, now recorded as if they were the whole ONS Postcode Directory.
    await installRows("uk-onspd", "2026-11-01", postcodes, [], ADDRESS_DATASETS["uk-onspd"].coverage);
    try {
      const fresh = await createAccount({ pack: 5 });
      const { body } = await lookup({ address: "221B Baker Street, London NW1 6XE", country: "GB" }, fresh.key);
      expect(body.data).toMatchObject({
        valid: false,
        verification: "invalid",
        reason: "unknown_postcode",
        postcode_found: false,
        risk_score: 70,
      });
      expect(body.data.sources).toContainEqual({ dataset: "uk-onspd", version: "2026-11-01", coverage: "full" });
      expect(body.meta.credits_used).toBe(0);
    } finally {
      await installRows("uk-onspd", SAMPLE_VERSION, postcodes, [], SAMPLE_COVERAGE);
    }
  });
});

describe("the OpenAPI document", () => {
  it(
    "describes coverage on /status/data (kind full|partial|sample, countries, note) and not_covered among the " +
      "reasons",
    async () => {
      const doc = (await (
        await call("/api/v1/openapi.json")
      ).body) as unknown as {
        paths: Record<string, { get?: unknown; post?: unknown }>;
        components: { schemas: Record<string, unknown> };
      };
      // Shared schemas live under components: follow each $ref so the operation reads as one text.
      const inline = (node: unknown): unknown =>
        Array.isArray(node)
          ? node.map(inline)
          : node && typeof node === "object"
            ? "$ref" in node
              ? inline(doc.components.schemas[String(node.$ref).split("/").pop()!])
              : Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]))
            : node;
      doc.paths = inline(doc.paths) as typeof doc.paths;
      const status = JSON.stringify(doc.paths["/api/v1/status/data"]!.get);
      expect(status).toContain('"coverage"');
      expect(status).toContain('"enum":["full","partial","sample"]');
      expect(status).toContain('"countries"');
      expect(JSON.stringify(doc.paths["/api/v1/address"]!.post)).toContain('"not_covered"');
      expect(JSON.stringify(doc.paths["/api/v1/ip"]!.post)).toContain('"not_covered"');
    },
  );
});
