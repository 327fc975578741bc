/**
 * Premise precision in France (docs/address.md, "precision"): the BAN importer keeps every address's house number, so
 * an address whose number the BAN lists on its street is located to the premise (`precision: "premise"`), and one it
 * does not list stays at `street`: the two are told apart. Verification and price do not change with precision.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { houseNumber } from "../src/products/address/premises";
import { installReference, installSamples, SAMPLE_VERSION } from "./address-samples";
import { createAccount, json, call, type TestAccount } from "./helpers";

let acct: TestAccount;
beforeAll(async () => {
  await installReference();
  await installSamples();
  acct = await createAccount({ pack: 50 });
});

const batch = (addresses: unknown[], key = acct.key) => call<Record<string, any>>("/api/v1/address/batch", json({ addresses, country: "FR" }, { Authorization: `Bearer ${key}` }));

describe("house numbers", () => {
  it("reads line 1's number as the BAN writes numero and rep", () => {
    expect(["55 rue X", "055, rue X", "55bis rue X", "55 BIS rue X", "12B rue X", "12-14 rue X", "rue X", "99999 rue X", "0 rue X"].map(houseNumber)).toEqual([
      "55",
      "55",
      "55 BIS",
      "55 BIS",
      "12 B",
      "12",
      null,
      null,
      null,
    ]);
  });
});

describe("POST /address/batch: France to the premise", () => {
  it("a number the BAN lists is premise; one it does not list, or none, stays street; all verified at 1 credit", async () => {
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
    expect(body.data.results.map((r: any) => [r.data.verification, r.data.precision, r.meta.credits_used])).toEqual([
      ["verified", "premise", 1],
      ["verified", "street", 1],
      ["verified", "street", 1],
      ["verified", "street", 1],
      ["verified", "premise", 1],
      ["verified", "premise", 1],
    ]);
    expect(body.data.results[0].data.sources).toContainEqual({ dataset: "fr-ban", version: SAMPLE_VERSION });
  });

  it("a number listed on another street of the postcode is not this street's premise", async () => {
    // 4 is listed on Place de la Concorde (75008), not on the Faubourg Saint-Honoré.
    const { body } = await batch(["4 rue du Faubourg Saint-Honoré, 75008 Paris", "4 Place de la Concorde, 75008 Paris"]);
    expect(body.data.results.map((r: any) => r.data.precision)).toEqual(["street", "premise"]);
  });
});
