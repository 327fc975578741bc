/**
 * An identifier sent without `type` (products.md, "Entity identifiers without `type`"; docs/entity.md): the value
 * says what it is, and what cannot be an LEI is never read as one.
 */
import { describe, expect, it } from "vitest";
import { typeOf } from "../../../src/products/entity/identifiers";
import { prepare } from "../../../src/products/entity/lookup";
import { makeLei } from "../../entity-samples";

describe("typeOf", () => {
  it.each([
    [makeLei("5493001KJTIIGC8Y1R"), "lei"],
    ["5493 001K JTII GC8Y 1R12", "lei"],
    ["ABCDEFGHIJKLMNOPQRST", "lei"],
    ["00445790", "company_number"],
    ["SC 123456", "company_number"],
    ["oc301234", "company_number"],
    ["445790", null],
    ["1234567890", null],
    ["SC1234567", null],
    ["not an id", null],
  ])("%s reads as %s", (value, type) => expect(typeOf(value)).toBe(type));
});

describe("prepare without a type", () => {
  it("reads a UK company number's shape in the UK register, never as an LEI with a failed checksum", () => {
    expect(prepare("00445790")).toMatchObject({
      type: "company_number",
      identifier: "00445790",
      country: "GB",
      checksumValid: null,
      problem: null,
    });
    expect(prepare({ identifier: "SC123456" })).toMatchObject({ type: "company_number", country: "GB" });
    // A country named with it is kept: no register of FR numbers.
    expect(prepare({ identifier: "00445790", country: "FR" })).toMatchObject({ problem: "unsupported_register" });
  });

  it("answers a value of neither shape invalid_identifier, with no register and no checksum", () => {
    expect(prepare("12345")).toMatchObject({
      type: "company_number",
      register: null,
      checksumValid: null,
      problem: "invalid_identifier",
    });
  });

  it("answers a value of any shape with an unsupported country unsupported_register, not invalid_identifier", () => {
    // A real French SIREN and a German register number: the register is missing, not the value wrong.
    expect(prepare({ identifier: "552081317", country: "FR" })).toMatchObject({
      type: "company_number",
      identifier: "552081317",
      country: "FR",
      register: null,
      problem: "unsupported_register",
    });
    expect(prepare({ identifier: "HRB 86891", country: "de" })).toMatchObject({
      country: "DE",
      problem: "unsupported_register",
    });
    // Same answer as with the type, and a supported country keeps the shape rule.
    expect(prepare({ identifier: "552081317", type: "company_number", country: "FR" })).toMatchObject({
      problem: "unsupported_register",
    });
    expect(prepare({ identifier: "12345", country: "GB" })).toMatchObject({ problem: "invalid_identifier" });
  });

  it("keeps an explicit type: an LEI asked for is checked as one", () => {
    expect(prepare({ identifier: "00445790", type: "lei" })).toMatchObject({
      type: "lei",
      checksumValid: false,
      problem: "unknown_identifier",
    });
    expect(prepare(makeLei("5493001KJTIIGC8Y1R"))).toMatchObject({ type: "lei", checksumValid: true, problem: null });
  });
});
