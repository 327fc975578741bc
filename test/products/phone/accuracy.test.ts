/**
 * Accuracy against public material (issue: "every example number libphonenumber's metadata ships"): Google's example
 * number of every type of every region (voicemail aside: the package does not expose it), as awesome-phonenumber
 * (libphonenumber 9.0.24) ships them, read by our numbering plan (libphonenumber-js, metadata 9.0.43): valid, the
 * right type, the right E.164. Then mutations of each that no plan accepts: too long, too short, letters, a national
 * spelling with no country.
 */
import { getExample, getSupportedRegionCodes, type PhoneNumberTypes } from "awesome-phonenumber";
import { getCountries } from "libphonenumber-js/max";
import { describe, expect, it } from "vitest";
import { readItem } from "../../../src/products/phone/numbering";
import { lengthsUnder, planOf, typesUnder } from "../../../src/products/phone/plan";
import type { LineType } from "../../../src/products/phone/result";

const TYPES: [PhoneNumberTypes, LineType][] = [
  ["fixed-line", "fixed_line"],
  ["mobile", "mobile"],
  ["toll-free", "toll_free"],
  ["premium-rate", "premium_rate"],
  ["shared-cost", "shared_cost"],
  ["voip", "voip"],
  ["personal-number", "personal_number"],
  ["pager", "pager"],
  ["uan", "uan"],
];

/**
 * Examples whose range the newer plan changed (9.0.24 -> 9.0.43). Listed so the test proves every other example; it
 * also fails when one of these starts to pass, so the list shrinks as the two packages line up.
 */
const CHANGED_SINCE_EXAMPLES = [
  "BJ voip +22985751234",
  "BJ uan +22981123456",
  "BW voip +26779101234",
  "ZW fixed_line +2631312345",
];

interface Example {
  region: string;
  type: LineType;
  e164: string;
  national: string;
}

function examples(): Example[] {
  const found: Example[] = [];
  for (const region of getSupportedRegionCodes()) {
    for (const [name, type] of TYPES) {
      let example: ReturnType<typeof getExample>;
      try {
        example = getExample(region, name);
      } catch {
        continue; // the region has no number of this type
      }
      if (example.valid) found.push({ region, type, e164: example.number.e164, national: example.number.significant });
    }
  }
  return found;
}

const EXAMPLES = examples();

/** Every national length a calling code allows, over all the regions that share it (+61: AU, CC, CX). */
const lengthsOfCode = new Map<string, number[]>();
for (const region of getCountries()) {
  const plan = planOf(region);
  if (plan) lengthsOfCode.set(plan.callingCode, [...(lengthsOfCode.get(plan.callingCode) ?? []), ...plan.lengths]);
}
const label = (e: Example) => `${e.region} ${e.type} ${e.e164}`;
const sameType = (e: Example, type: LineType) =>
  type === e.type || (type === "fixed_line_or_mobile" && (e.type === "fixed_line" || e.type === "mobile"));

describe("libphonenumber's example numbers", () => {
  it("reads every example as valid, of its type, with its E.164 (counts in docs/phone.md)", () => {
    expect(EXAMPLES.length).toBeGreaterThan(1_000);
    const wrong = EXAMPLES.filter((e) => {
      const r = readItem(e.e164);
      return !(r.valid && r.e164 === e.e164 && sameType(e, r.line_type));
    });
    expect(wrong.map(label)).toEqual(CHANGED_SINCE_EXAMPLES);
    console.log(
      `phone accuracy: ${EXAMPLES.length - wrong.length} of ${EXAMPLES.length} example numbers right; ` +
        `${wrong.length} changed since`,
    );
  });

  it("reads each example written nationally with its region the same as in E.164", () => {
    const differ = EXAMPLES.filter((e) => readItem({ phone: e.national, country: e.region }).parsed !== e.e164);
    expect(differ.map(label)).toEqual([]);
  });

  it("answers every mutation invalid, with the length error or NOT_A_NUMBER / INVALID_COUNTRY", () => {
    let mutations = 0;
    for (const e of EXAMPLES) {
      const code = e.e164.slice(1, e.e164.length - e.national.length);
      const lengths = lengthsOfCode.get(code)!;
      const longest = Math.max(...lengths);
      const cases: [string | { phone: string; country: string }, string][] = [
        // Four digits past the longest length: still too long if the plan strips a national prefix (BY: 8) first.
        [`+${code}${e.national}${"5".repeat(longest + 4 - e.national.length)}`, "TOO_LONG"],
        // Two digits: shorter than any plan, even those that prefix short local numbers (NF: 5 digits -> 3 + 5; MG).
        [`+${code}${e.national.slice(0, 2)}`, "TOO_SHORT"],
        [`+${code}${e.national.replace(/\d/g, "x")}`, "NOT_A_NUMBER"],
        [e.national, "INVALID_COUNTRY"],
      ];
      for (const [input, error] of cases) {
        const r = readItem(input);
        mutations++;
        expect({ input, valid: r.valid, error: r.validation_error }, label(e)).toEqual({ input, valid: false, error });
      }
    }
    console.log(`phone accuracy: ${mutations} invalid mutations answered invalid`);
  });

  it("finds each example's type and length through the prefix matcher the block listing uses", () => {
    const current = EXAMPLES.filter((e) => !CHANGED_SINCE_EXAMPLES.includes(label(e)));
    const wrong = current.filter((e) => {
      const plan = planOf(readItem(e.e164).country ?? e.region)!;
      return (
        !typesUnder(plan, e.national, e.national.length).includes(e.type) ||
        !lengthsUnder(plan, e.national).includes(e.national.length)
      );
    });
    expect(wrong.map(label)).toEqual([]);
  });
});
