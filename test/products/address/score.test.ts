/** The address risk formula (docs/address.md, "Risk score"): what a verified address's precision left unchecked. */
import { describe, expect, it } from "vitest";
import { risk } from "../../../src/products/address/score";

const verified = (verifiedAt: "premise" | "street" | "locality" | "postcode", poBox = false) =>
  risk({ failed: [], formatOnly: false, poBox, verifiedAt });

describe("risk follows precision", () => {
  it("scores each level below premise higher than the one above it, all still low", () => {
    expect([verified("premise"), verified("street"), verified("locality"), verified("postcode")]).toEqual([
      { risk_score: 0, risk_components: {}, risk_level: "low" },
      { risk_score: 5, risk_components: { premise_unchecked: 5 }, risk_level: "low" },
      { risk_score: 15, risk_components: { street_unchecked: 15 }, risk_level: "low" },
      {
        risk_score: 20,
        risk_components: { locality_unchecked: 5, street_unchecked: 15 },
        risk_level: "low",
      },
    ]);
  });

  it("adds to the other components, and leaves answers that are not verified to their own", () => {
    expect(verified("locality", true).risk_components).toEqual({ po_box: 10, street_unchecked: 15 });
    expect(risk({ failed: ["locality_mismatch"], formatOnly: false, poBox: false, verifiedAt: null })).toMatchObject({
      risk_score: 50,
      risk_components: { locality_mismatch: 50 },
    });
    expect(risk({ failed: [], formatOnly: true, poBox: false }).risk_components).toEqual({ unverifiable: 30 });
  });
});
