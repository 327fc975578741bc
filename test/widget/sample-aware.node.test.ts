import { describe, expect, it } from "vitest";
import { sampleAware } from "../../widget/src/sample-aware";

type View = {
  state: string;
  tone: "ok" | "warn" | "bad" | null;
  text: string;
  suggestion: string | null;
  invalid: boolean;
};

/** docs/widget.md: a confirmation a sample decided is shown as a warning; a sample only consulted tints nothing. */
const OK: View = { state: "verified", tone: "ok", text: "Address confirmed.", suggestion: null, invalid: false };
const source = (coverage: string, decided?: false) => ({ dataset: "d", version: "1", coverage, decided });

describe("the widget's sample rule", () => {
  it("turns an ok view decided by a sample into a warning", () => {
    expect(sampleAware(OK, { sources: [source("full"), source("sample")] })).toEqual({
      ...OK,
      tone: "warn",
      text: "Checked against sample data only, not a real register.",
    });
  });

  it("leaves it when the samples decided nothing, or only live sources without an answer are cited", () => {
    expect(sampleAware(OK, { sources: [source("full"), source("sample", false), source("none")] })).toEqual(OK);
  });

  it("never changes a warning or a refusal", () => {
    const bad: View = { ...OK, state: "invalid", tone: "bad", text: "This postcode does not exist.", invalid: true };
    expect(sampleAware(bad, { sources: [source("sample")] })).toEqual(bad);
  });
});
