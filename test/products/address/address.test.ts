/**
 * POST /api/v1/address (docs/address.md): the answer's fields for each kind of address, billing (1 credit only for
 * `verified`, repeats free), corrections, the datasets cited in `sources`, and the request errors.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anotherKey, bearer, call, createAccount, json, type TestAccount } from "../../helpers";
import { installAddressData, SAMPLE_VERSION, versionOf } from "../../address-samples";

let acct: TestAccount;
let key: string;
beforeAll(async () => {
  await installAddressData();
  acct = await createAccount({ pack: 100 });
});
// Five requests a second per key: each test gets a key of its own.
beforeEach(async () => void (key = await anotherKey(acct)));

const lookup = (body: unknown, as = key) =>
  call<Record<string, any>>("/api/v1/address", json(body, { Authorization: `Bearer ${as}` }));

const SPRINGFIELD = { line1: "1 Main St", locality: "Springfield", region: "IL", postcode: "62701", country: "US" };

describe("POST /address: verified", () => {
  it("confirms a US address from the ZIP table, bills 1 credit and cites the datasets that decided it", async () => {
    const fresh = await createAccount({ pack: 10 });
    const { status, body } = await lookup({ address: SPRINGFIELD }, fresh.key);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      input: SPRINGFIELD,
      country: "US",
      valid: true,
      verification: "verified",
      precision: "locality",
      address: {
        line1: "1 Main St",
        line2: null,
        locality: "Springfield",
        region: "IL",
        postcode: "62701",
        country: "US",
      },
      formatted: "1 Main St\nSpringfield, IL 62701",
      postcode_format_valid: true,
      postcode_found: true,
      locality_matches_postcode: true,
      region_matches_postcode: true,
      po_box: false,
      corrections: [],
      missing_components: [],
      deliverable: null,
      reason: null,
      // Located to its locality: no register listed its street, so it never scores as safe as one that did.
      risk_score: 15,
      risk_components: { street_unchecked: 15 },
      risk_level: "low",
    });
    expect(body.data.geo).toMatchObject({ precision: "postcode" });
    expect(body.data.geo.latitude).toBeCloseTo(39.8, 0);
    expect(body.data.sources.map((s: { dataset: string }) => s.dataset)).toEqual([
      "postcode-formats",
      "address-countries",
      "us-zip-codes",
    ]);
    expect(body.data.sources[2]).toEqual({
      dataset: "us-zip-codes",
      version: versionOf("us-zip-codes"),
      coverage: "partial",
    });
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 9, cache_hit: false, suppressed: false });
  });

  it("answers a repeat of the same address (any spelling, object or one line) free with cache_hit", async () => {
    const fresh = await createAccount({ pack: 10 });
    expect((await lookup({ address: SPRINGFIELD }, fresh.key)).body.meta).toMatchObject({ credits_used: 1 });
    const again = await lookup({ address: "1 main st,  SPRINGFIELD, il 62701", country: "us" }, fresh.key);
    expect(again.body.data).toMatchObject({ verification: "verified", input: "1 main st,  SPRINGFIELD, il 62701" });
    expect(again.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 9, cache_hit: true });
  });

  it("lists cosmetic corrections (case, state name, postcode spacing) and still verifies", async () => {
    const { body } = await lookup({
      address: { line1: "1 Main St", locality: "springfield", region: "Illinois", postcode: " 62701 ", country: "US" },
    });
    expect(body.data.verification).toBe("verified");
    expect(body.data.corrections).toEqual([
      { field: "locality", from: "springfield", to: "Springfield" },
      { field: "region", from: "Illinois", to: "IL" },
    ]);
    expect(body.data.address).toMatchObject({ locality: "Springfield", region: "IL", postcode: "62701" });
  });

  it(
    "reads a French one-line address, accepts the commune and confirms the street and its number from the " + "BAN",
    async () => {
      const { body } = await lookup({
        address: "55 rue du Faubourg Saint-Honoré, 75008 PARIS CEDEX 08",
        country: "FR",
      });
      expect(body.data).toMatchObject({
        verification: "verified",
        precision: "premise",
        locality_matches_postcode: true,
        region_matches_postcode: null,
      });
      expect(body.data.address).toMatchObject({
        line1: "55 rue du Faubourg Saint-Honoré",
        locality: "Paris",
        postcode: "75008",
      });
      expect(body.data.formatted).toBe("55 rue du Faubourg Saint-Honoré\n75008 Paris");
      expect(body.data.sources).toContainEqual({ dataset: "fr-ban", version: SAMPLE_VERSION, coverage: "sample" });
    },
  );

  it("takes a German place without its qualifier and writes the register's name", async () => {
    const { body } = await lookup({
      address: { line1: "Zeil 1", locality: "Frankfurt", postcode: "60311", country: "DE" },
    });
    expect(body.data).toMatchObject({
      verification: "verified",
      geo: null,
      corrections: [{ field: "locality", from: "Frankfurt", to: "Frankfurt am Main" }],
    });
  });

  it(
    "confirms a UK postcode from ONSPD with the place from OS Open Names; a county is not held against " + "it",
    async () => {
      const { body } = await lookup({
        address: {
          line1: "10 Downing Street",
          locality: "London",
          region: "Greater London",
          postcode: "sw1a2aa",
          country: "GB",
        },
      });
      expect(body.data).toMatchObject({
        verification: "verified",
        precision: "street",
        region_matches_postcode: null,
        corrections: [{ field: "postcode", from: "sw1a2aa", to: "SW1A 2AA" }],
      });
      expect(body.data.geo.latitude).toBeCloseTo(51.5035, 3);
      expect(body.data.sources.map((s: { dataset: string }) => s.dataset)).toEqual([
        "postcode-formats",
        "address-countries",
        "uk-onspd",
        "uk-os-open-names",
      ]);
    },
  );

  it("flags a PO box and still verifies it", async () => {
    const { body } = await lookup({
      address: { line1: "P.O. Box 123", locality: "Springfield", region: "IL", postcode: "62701", country: "US" },
    });
    expect(body.data).toMatchObject({
      verification: "verified",
      po_box: true,
      risk_score: 25,
      risk_components: { po_box: 10, street_unchecked: 15 },
      risk_level: "low",
    });
  });
});

describe("POST /address: not verified, free", () => {
  it(
    "a locality the postcode does not serve: invalid, locality_mismatch, with the postcode's place as " + "correction",
    async () => {
      const { body } = await lookup({ address: { ...SPRINGFIELD, locality: "Chicago" } });
      expect(body.data).toMatchObject({
        valid: false,
        verification: "invalid",
        reason: "locality_mismatch",
        precision: "postcode",
        locality_matches_postcode: false,
      });
      expect(body.data.corrections).toEqual([{ field: "locality", from: "Chicago", to: "Springfield" }]);
      expect(body.data).toMatchObject({ risk_score: 50, risk_level: "medium" });
      expect(body.meta.credits_used).toBe(0);
    },
  );

  it("a state the ZIP is not in: region_mismatch", async () => {
    const { body } = await lookup({ address: { ...SPRINGFIELD, region: "MA" } });
    expect(body.data).toMatchObject({
      verification: "invalid",
      reason: "region_mismatch",
      region_matches_postcode: false,
      corrections: [{ field: "region", from: "MA", to: "IL" }],
    });
  });

  it(
    "a well-formed ZIP the table does not hold: GeoNames' list is partial, so format_only, not_covered, precision " +
      "country",
    async () => {
      const { body } = await lookup({ address: { ...SPRINGFIELD, postcode: "00000" } });
      expect(body.data).toMatchObject({
        verification: "format_only",
        reason: "not_covered",
        postcode_format_valid: true,
        postcode_found: null,
        precision: "country",
        geo: null,
        risk_score: 30,
        risk_level: "medium",
      });
      // Consulted, and it holds nothing of the ZIP: cited, saying it decided nothing.
      expect(body.data.sources).toContainEqual({
        dataset: "us-zip-codes",
        version: versionOf("us-zip-codes"),
        coverage: "partial",
        decided: false,
      });
      expect(body.meta.credits_used).toBe(0);
    },
  );

  it("a malformed postcode: invalid_postcode_format, no dataset consulted", async () => {
    const { body } = await lookup({ address: { ...SPRINGFIELD, postcode: "6270" } });
    expect(body.data).toMatchObject({
      verification: "invalid",
      reason: "invalid_postcode_format",
      postcode_format_valid: false,
      postcode_found: null,
    });
    expect(body.data.sources.map((s: { dataset: string }) => s.dataset)).toEqual([
      "postcode-formats",
      "address-countries",
    ]);
  });

  it("a country no dataset covers: format_only, medium risk, free", async () => {
    const { body } = await lookup({ address: "Via Roma 1, 00184 Roma", country: "IT" });
    expect(body.data).toMatchObject({
      valid: true,
      verification: "format_only",
      reason: "not_covered",
      precision: "country",
      postcode_format_valid: true,
      postcode_found: null,
      risk_components: { unverifiable: 30 },
      risk_level: "medium",
    });
    expect(body.data.address).toMatchObject({ line1: "Via Roma 1", locality: "Roma", postcode: "00184" });
    expect(body.meta.credits_used).toBe(0);
  });

  it("missing parts: missing_components, filled in where the postcode tells", async () => {
    const { body } = await lookup({ address: { postcode: "62701", country: "US" } });
    expect(body.data).toMatchObject({
      verification: "invalid",
      reason: "missing_components",
      missing_components: ["line1", "locality", "region"],
    });
    expect(body.data.corrections).toEqual([
      { field: "locality", from: null, to: "Springfield" },
      { field: "region", from: null, to: "IL" },
    ]);
  });

  it("a two-letter code that is no country: unsupported_country, risk 100", async () => {
    const { body } = await lookup({ address: "1 Main St", country: "XX" });
    expect(body.data).toMatchObject({
      valid: false,
      verification: "invalid",
      precision: "none",
      reason: "unsupported_country",
      risk_score: 100,
      risk_level: "high",
      formatted: null,
    });
  });
});

describe("POST /address: test addresses and errors", () => {
  it("answers a test address (country ZZ) canonically, free, with no dataset", async () => {
    const { body } = await lookup({ address: { line1: "Locality-Mismatch", locality: "Elsewhere", country: "ZZ" } });
    expect(body.data).toMatchObject({
      verification: "invalid",
      reason: "locality_mismatch",
      sources: [{ dataset: "test-addresses", version: "2026-11-23", coverage: "full" }],
    });
    expect(body.meta).toMatchObject({ credits_used: 0, cache_hit: false });
  });

  it.each([
    [{ address: "1 Main St, Springfield" }, "address.country"],
    [{ address: { line1: "1 Main St" } }, "address.country"],
    [{ address: SPRINGFIELD, country: "USA" }, "country"],
    [{ address: { ...SPRINGFIELD, line1: "x".repeat(201) } }, "address.line1"],
    [{ address: 42, country: "US" }, "address"],
  ])("answers 422 for a malformed request %#", async (body, field) => {
    const { status, body: envelope } = await lookup(body);
    expect([status, envelope.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(Object.keys(envelope.error.errors!)).toContain(field);
  });

  it("needs the address scope", async () => {
    const narrow = await createAccount({ key: { scopes: ["email"] } });
    const { status, body } = await call(
      "/api/v1/address",
      json({ address: SPRINGFIELD }, bearer(narrow.key).headers as Record<string, string>),
    );
    expect([status, body.error.code]).toEqual([403, "KEY_SCOPE_DENIED"]);
  });
});
