import { describe, expect, it } from "vitest";
import {
  changeReason as reasonOf,
  provenanceOf,
  splitBaseline,
  sourceKindsOf,
  type Provenance,
} from "../../../src/engines/monitors/change-reason";

/** The provenance of an answer citing `sources` ([dataset, version] pairs). */
const cited = (sources: [string, string][], suppressed = false): Provenance =>
  provenanceOf({ sources: sources.map(([dataset, version]) => ({ dataset, version, coverage: "full" })) }, suppressed);

const DNS: [string, string] = ["live-dns", "live"];

/** What a product would declare: email's checks, a delivery-point and a phone-network partner. */
const KINDS = sourceKindsOf({ checked: ["live-dns", "mailbox-smtp"], partners: ["smarty-us-street", "twilio-lookup"] });
const changeReason = (before: Provenance | undefined, now: Provenance) => reasonOf(before, now, KINDS);

describe("why a monitored entry changed (products.md, Monitor changes)", () => {
  it("suppressed: the value is answered from the account's suppressions now, known baseline or not", () => {
    const now = cited([["suppression-list", "account"]], true);
    expect(changeReason(cited([DNS]), now)).toBe("suppressed");
    expect(changeReason(undefined, now)).toBe("suppressed");
  });

  it("feedback: the answer cites delivery feedback the baseline did not, or of another day", () => {
    const now = cited([DNS, ["delivery-feedback", "2026-11-27"]]);
    expect(changeReason(cited([DNS]), now)).toBe("feedback");
    expect(changeReason(cited([DNS, ["delivery-feedback", "2026-11-20"]]), now)).toBe("feedback");
    expect(changeReason(cited([DNS, ["delivery-feedback", "2026-11-27"]]), now)).toBe("recheck");
  });

  it("dataset: a dataset cited by both answers at another version; a check's newer time is a recheck", () => {
    const before = cited([DNS, ["gleif-lei", "2026-11-01"], ["mailbox-smtp", "2026-11-01"]]);
    expect(changeReason(before, cited([DNS, ["gleif-lei", "2026-11-08"], ["mailbox-smtp", "2026-11-01"]]))).toBe(
      "dataset",
    );
    expect(changeReason(before, cited([DNS, ["gleif-lei", "2026-11-01"], ["mailbox-smtp", "2026-11-08"]]))).toBe(
      "recheck",
    );
  });

  it("partner: a partner answered either time and no dataset moved", () => {
    const zip: [string, string] = ["us-zip-codes", "1"];
    const before = cited([zip, ["smarty-us-street", "2026-11-01T00:00:00Z"]]);
    expect(changeReason(before, cited([zip, ["smarty-us-street", "2026-11-08T00:00:00Z"]]))).toBe("partner");
    expect(changeReason(cited([zip]), cited([zip, ["twilio-lookup", "2026-11-08"]]))).toBe("partner");
    expect(changeReason(before, cited([["us-zip-codes", "2"]]))).toBe("dataset");
  });

  it("recheck when nothing cited moved; null when the baseline kept no provenance", () => {
    expect(changeReason(cited([DNS]), cited([DNS]))).toBe("recheck");
    expect(changeReason(provenanceOf({ value: "x" }, false), provenanceOf({ value: "x" }, false))).toBe("recheck");
    expect(changeReason(undefined, cited([DNS]))).toBeNull();
  });

  it("a stored baseline splits into the observed fields and the provenance kept beside them", () => {
    const provenance = cited([DNS]);
    expect(splitBaseline({ deliverable: "risky", "@provenance": provenance })).toEqual({
      answer: { deliverable: "risky" },
      provenance,
    });
    expect(splitBaseline({ deliverable: "risky" })).toEqual({
      answer: { deliverable: "risky" },
      provenance: undefined,
    });
  });
});
