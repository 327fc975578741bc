/** The query reader and the ranking tiers as plain functions (docs/address.md, "Autocomplete"). */
import { describe, expect, it } from "vitest";
import { drivingWord, entryTokens, parseQuery } from "../../../src/products/address/autocomplete/normalise";
import { tier, type Hit } from "../../../src/products/address/autocomplete/search";

describe("parseQuery", () => {
  it("folds accents and case and expands street-type abbreviations", () => {
    expect(parseQuery("Bd Saint-Germain").words).toEqual(["BOULEVARD", "SAINT", "GERMAIN"]);
    expect(parseQuery("av. des Champs-Élysées").words).toEqual(["AVENUE", "DES", "CHAMPS", "ELYSEES"]);
    expect(parseQuery("Baker St").words).toEqual(["BAKER", "STREET"]);
    expect(parseQuery("abbey rd").words).toEqual(["ABBEY", "ROAD"]);
    expect(parseQuery("rue de l'Église").words).toEqual(["RUE", "DE", "L", "EGLISE"]);
  });

  it("splits off a leading house number with its suffix, glued or apart", () => {
    expect(
      ["12 rue x", "12bis rue x", "12 bis rue x", "12 ter rue x", "12b rue x", "rue x 12"].map(
        (q) => parseQuery(q).number,
      ),
    ).toEqual(["12", "12 BIS", "12 BIS", "12 TER", "12 B", null]);
    expect(parseQuery("12 bis rue x").words).toEqual(["RUE", "X"]);
    // A lone number, or five digits, is a postcode being typed, not a house number.
    expect([parseQuery("750").number, parseQuery("75008 paris").number]).toEqual([null, null]);
  });

  it("drives the index read from the longest word that is not an article", () => {
    expect(drivingWord(["RUE", "DE", "RIVOLI"])).toBe("RIVOLI");
    expect(drivingWord(["DES"])).toBe("DES");
    expect(drivingWord([])).toBeNull();
  });

  it("indexes an entry's words but articles, and its postcode whole and in parts", () => {
    expect(entryTokens("RUE DE LA PAIX", "75002")).toEqual(["RUE", "PAIX", "75002"]);
    expect(entryTokens("DOWNING STREET", "SW1A 2AA")).toEqual(["DOWNING", "STREET", "SW1A2AA", "SW1A", "2AA"]);
  });
});

describe("tier", () => {
  const street = (key: string, premise = 0): Hit => ({
    kind: "street",
    postcode: "75001",
    label: key,
    street_key: key,
    locality: "Paris",
    region: null,
    dataset: "fr-ban",
    premise,
  });
  const place: Hit = { ...street(""), kind: "postcode", label: "Paris", street_key: "" };

  it("puts a listed number on a street the query starts first, then streets, places, postcodes", () => {
    const q = parseQuery("12 rue de rivoli");
    expect(tier(street("RUE DE RIVOLI", 1), q)).toBe(0);
    expect(tier(street("RUE DE RIVOLI", 0), q)).toBe(1);
    expect(tier(street("GRANDE RUE DE RIVOLI", 1), q)).toBe(3);
    expect(tier(place, parseQuery("pari"))).toBe(5);
    expect(tier(place, parseQuery("7500"))).toBe(6);
    expect(tier(street("RUE DE RIVOLI"), parseQuery("7500"))).toBe(8);
  });
});
