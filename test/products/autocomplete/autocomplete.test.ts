/**
 * Address autocomplete over HTTP (docs/address.md, "Autocomplete"): exact suggestions from the shipped samples'
 * index, their ranking and normalisation, the `not_covered` and `too_short` answers, and the 422s.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { AutocompleteResult } from "../../../src/products/address/autocomplete/result";
import { installSamples } from "../../address-samples";
import { admin, anotherKey, bearer, call, createAccount } from "../../helpers";

// Five requests a second per key (spec "Limits"): the account's keys take turns.
let keys: string[] = [];
let turn = 0;
beforeAll(async () => {
  await installSamples();
  const acct = await createAccount({ pack: 20 });
  keys = [acct.key, ...(await Promise.all(Array.from({ length: 7 }, () => anotherKey(acct))))];
});

const get = (query: Record<string, string>, key = keys[turn++ % keys.length]!) =>
  call<AutocompleteResult>(`/api/v1/address/autocomplete?${new URLSearchParams(query)}`, bearer(key));

const texts = async (q: string, country = "FR", limit = "5") =>
  (await get({ q, country, limit })).body.data.suggestions.map((s) => s.text);

describe("GET /address/autocomplete", () => {
  it("suggests a listed house number on its street, to the premise, citing the sample with its coverage", async () => {
    const { status, body } = await get({ q: "55 rue du faubourg", country: "FR" });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      suggestions: [
        {
          text: "55 Rue du Faubourg Saint-Honoré, 75008 Paris 8e Arrondissement",
          line1: "55 Rue du Faubourg Saint-Honoré",
          locality: "Paris 8e Arrondissement",
          region: null,
          postcode: "75008",
          country: "FR",
          precision: "premise",
          id: "FR|street|75008|RUE DU FAUBOURG SAINT HONORE|55",
        },
      ],
      reason: null,
      sources: [{ dataset: "fr-ban", version: "2026-11-23-sample", coverage: "sample" }],
    });
  });

  it("keeps a number the BAN does not list at street precision, without the number", async () => {
    const { body } = await get({ q: "59 rue du faubourg", country: "FR" });
    expect(body.data.suggestions.map((s) => [s.line1, s.precision])).toEqual([
      ["Rue du Faubourg Saint-Honoré", "street"],
    ]);
  });

  it("folds accents, case and street-type abbreviations (av, bd, st, rd) as the index does", async () => {
    const want = "2 Avenue des Champs-Élysées, 75008 Paris 8e Arrondissement";
    expect(await texts("2 av des champs elysees")).toEqual([want]);
    expect(await texts("2 AVENUE DES CHAMPS-ÉLYSÉES")).toEqual([want]);
    expect(await texts("2 av. champs-ely")).toEqual([want]);
    expect(await texts("downing st", "GB")).toEqual(["Downing Street, London SW1A"]);
  });

  it("reads a house-number suffix glued or apart (55bis, 55 bis) and asks the BAN for that number", async () => {
    const glued = await get({ q: "55bis rue du faubourg", country: "FR" });
    const apart = await get({ q: "55 bis rue du faubourg", country: "FR" });
    // The sample lists 55, not 55 bis: the street answers, at street precision.
    expect(glued.body.data.suggestions.map((s) => s.precision)).toEqual(["street"]);
    expect(apart.body.data.suggestions).toEqual(glued.body.data.suggestions);
  });

  // Other files of the shared database may install more French rows: these check order and membership, not counts.
  it("ranks streets the query starts first, then places, then postcodes, then streets found by postcode", async () => {
    const rue = await get({ q: "rue", country: "FR", limit: "10" });
    const streets = rue.body.data.suggestions;
    expect(streets.map((s) => s.text)).toEqual(
      expect.arrayContaining([
        "Rue de Rivoli, 75001 Paris 1er Arrondissement",
        "Rue du Faubourg Saint-Honoré, 75008 Paris 8e Arrondissement",
      ]),
    );
    expect(streets.every((s) => s.precision === "street" && s.line1!.startsWith("Rue "))).toBe(true);
    const paris = (await get({ q: "paris", country: "FR", limit: "10" })).body.data.suggestions;
    expect(paris.map((s) => s.text)).toEqual(
      expect.arrayContaining(["75008 Paris 8e Arrondissement", "75001 Paris 1er Arrondissement"]),
    );
    expect(paris.every((s) => s.precision === "postcode" && s.locality!.startsWith("Paris"))).toBe(true);
    const mixed = (await get({ q: "750", country: "FR", limit: "10" })).body.data.suggestions;
    const kinds = mixed.map((s) => s.precision);
    // Every postcode before every street found by its postcode.
    expect(kinds.lastIndexOf("postcode")).toBeLessThan(kinds.indexOf("street") === -1 ? 99 : kinds.indexOf("street"));
    expect(mixed.filter((s) => s.precision === "postcode").every((s) => s.postcode.startsWith("750"))).toBe(true);
    expect(await texts("rue 75001", "FR")).toEqual(["Rue de Rivoli, 75001 Paris 1er Arrondissement"]);
  });

  it("answers at most `limit` suggestions", async () => {
    expect((await texts("paris", "FR", "1")).length).toBe(1);
  });

  it("answers a country no installed dataset covers with an empty list, not_covered, free", async () => {
    const fresh = await createAccount({ pack: 1 });
    const { status, body } = await get({ q: "hauptstrasse", country: "IT" }, fresh.key);
    expect([status, body.data, body.meta.credits_used]).toEqual([
      200,
      { suggestions: [], reason: "not_covered", sources: [] },
      0,
    ]);
  });

  it("answers fewer than 3 folded characters too_short, free", async () => {
    const fresh = await createAccount({ pack: 1 });
    const { status, body } = await get({ q: " é-", country: "FR" }, fresh.key);
    expect([status, body.data.reason, body.data.suggestions, body.meta.credits_used]).toEqual([
      200,
      "too_short",
      [],
      0,
    ]);
  });

  it("refuses a missing or bad country or q, and a limit out of range, with 422 VALIDATION_FAILED", async () => {
    for (const query of [
      { q: "rue de rivoli" },
      { q: "rue de rivoli", country: "XX" },
      { q: "rue de rivoli", country: "FRA" },
      { country: "FR" },
      { q: "", country: "FR" },
      { q: "x".repeat(201), country: "FR" },
      { q: "rue", country: "FR", limit: "11" },
      { q: "rue", country: "FR", limit: "0" },
    ]) {
      const { status, body } = await get(query as Record<string, string>);
      expect([status, body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
  });

  it("answers the test country ZZ with canned suggestions, free, and to the sandbox key", async () => {
    const fresh = await createAccount({ pack: 1 });
    const { body } = await get({ q: "1 test", country: "ZZ", limit: "1" }, fresh.key);
    expect(body.data.suggestions.map((s) => s.text)).toEqual(["1 Test Street, Testville ZZ1 1ZZ"]);
    expect(body.meta).toMatchObject({ credits_used: 0, autocomplete_prepaid: 0 });
    await admin("PUT", "/sandbox", { enabled: true });
    const sandbox = (country: string) =>
      call<AutocompleteResult>(
        `/api/v1/address/autocomplete?${new URLSearchParams({ q: "1 test", country })}`,
        bearer("sk_test_public_sandbox", { "CF-Connecting-IP": "203.0.113.78" }),
      );
    const sample = await sandbox("ZZ");
    expect([sample.status, sample.body.data.suggestions.length, sample.body.meta.credits_used]).toEqual([200, 2, 0]);
    const other = await sandbox("FR");
    expect([other.status, other.body.error?.code]).toEqual([403, "SANDBOX_VALUE_NOT_ALLOWED"]);
  });
});
