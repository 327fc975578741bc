/**
 * Premise precision in France (docs/address.md, "precision"): the BAN importer keeps every address's house number, so
 * an address whose number the BAN lists on its street is located to the premise (`precision: "premise"`), and one it
 * does not list stays at `street`: the two are told apart. Verification and price do not change with precision. Also:
 * a French locality written with or without its leading article matches its commune.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { houseNumber } from "../../../src/products/address/premises";
import { installReference, installSamples, SAMPLE_VERSION } from "../../address-samples";
import { createAccount, json, call, type TestAccount } from "../../helpers";

let acct: TestAccount;
beforeAll(async () => {
  await installReference();
  await installSamples();
  acct = await createAccount({ pack: 50 });
});

const batch = (addresses: unknown[], key = acct.key) =>
  call<Record<string, any>>(
    "/api/v1/address/batch",
    json({ addresses, country: "FR" }, { Authorization: `Bearer ${key}` }),
  );

describe("house numbers", () => {
  it("reads line 1's number as the BAN writes numero and rep", () => {
    expect(
      [
        "55 rue X",
        "055, rue X",
        "55bis rue X",
        "55 BIS rue X",
        "12B rue X",
        "12-14 rue X",
        "rue X",
        "99999 rue X",
        "0 rue X",
      ].map(houseNumber),
    ).toEqual(["55", "55", "55 BIS", "55 BIS", "12 B", "12", null, null, null]);
  });
});

describe("POST /address/batch: France to the premise", () => {
  it(
    "a number the BAN lists is premise; one it does not list, or none, stays street; all verified at 1 " + "credit",
    async () => {
      const fresh = await createAccount({ pack: 10 });
      const { status, body } = await batch(
        [
          "55 rue du Faubourg Saint-Honoré, 75008 Paris",
          "59 rue du Faubourg Saint-Honoré, 75008 Paris",
          "55 bis rue du Faubourg Saint-Honoré, 75008 Paris",
          "Rue du Faubourg Saint-Honoré, 75008 Paris",
          "2 Avenue des Champs-Élysées, 75008 Paris",
          "3 Le Bourg, 01400 L'Abergement-Clémenciat",
        ],
        fresh.key,
      );
      expect(status).toBe(200);
      const rows = body.data.results.map((r: any) => [
        r.data.verification,
        r.data.precision,
        r.data.risk_score,
        r.meta.credits_used,
      ]);
      // Risk follows precision: a house number the BAN lists scores 0, a street without its number 5
      // (`premise_unchecked`), and `verified` means the same at both.
      expect(rows).toEqual([
        ["verified", "premise", 0, 1],
        ["verified", "street", 5, 1],
        ["verified", "street", 5, 1],
        ["verified", "street", 5, 1],
        ["verified", "premise", 0, 1],
        ["verified", "premise", 0, 1],
      ]);
      expect(body.data.results[1].data.risk_components).toEqual({ premise_unchecked: 5 });
      expect(body.data.results[0].data.sources).toContainEqual({
        dataset: "fr-ban",
        version: SAMPLE_VERSION,
        coverage: "sample",
      });
    },
  );

  it("a number listed on another street of the postcode is not this street's premise", async () => {
    // 4 is listed on Place de la Concorde (75008), not on the Faubourg Saint-Honoré.
    const { body } = await batch([
      "4 rue du Faubourg Saint-Honoré, 75008 Paris",
      "4 Place de la Concorde, 75008 Paris",
    ]);
    expect(body.data.results.map((r: any) => r.data.precision)).toEqual(["street", "premise"]);
  });
});

describe("French localities with or without their leading article", () => {
  it("Le, La, Les and L' may be left out (the commune's name is the correction) or added", async () => {
    const { body } = await batch([
      { line1: "1 rue de l'Église", locality: "Chaise", postcode: "10500", country: "FR" },
      { line1: "1 rue de l'Église", locality: "Mathes", postcode: "17570", country: "FR" },
      { line1: "1 rue de l'Église", locality: "Monastère", postcode: "12000", country: "FR" },
      { line1: "1 rue de l'Église", locality: "Abergement-Clémenciat", postcode: "01400", country: "FR" },
      { line1: "1 rue de l'Église", locality: "Hôtellerie", postcode: "14100", country: "FR" },
      { line1: "1 rue de l'Église", locality: "La Rodez", postcode: "12000", country: "FR" },
      { line1: "1 rue de l'Église", locality: "Les Mathes", postcode: "17570", country: "FR" },
    ]);
    expect(body.data.results.map((r: any) => [r.data.locality_matches_postcode, r.data.address.locality])).toEqual([
      [true, "La Chaise"],
      [true, "Les Mathes"],
      [true, "Le Monastère"],
      [true, "L'Abergement-Clémenciat"],
      [true, "L'Hôtellerie"],
      [true, "Rodez"],
      [true, "Les Mathes"],
    ]);
    expect(body.data.results[0].data.corrections).toEqual([{ field: "locality", from: "Chaise", to: "La Chaise" }]);
  });

  it("another commune of the postcode is still a mismatch, article or not", async () => {
    const { body } = await batch([
      { line1: "1 rue de l'Église", locality: "La Roche", postcode: "10500", country: "FR" },
    ]);
    expect(body.data.results[0].data).toMatchObject({
      verification: "invalid",
      reason: "locality_mismatch",
      locality_matches_postcode: false,
    });
  });
});
