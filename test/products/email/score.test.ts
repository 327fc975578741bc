/**
 * Unit tests of src/products/email/score.ts, driven by the spec (verification-api.md: "Email result", "Test
 * addresses", "POST /api/v1/email" rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import {
  mailboxConfidence,
  riskComponents,
  riskLevel,
  riskScore,
  round2,
  type ScoreInputs,
} from "../../../src/products/email/score";

/** A clean deliverable answer: no risk signal at all (SPF published, DMARC reject). */
const clean = (over: Partial<ScoreInputs> = {}): ScoreInputs => ({
  deliverable: "deliverable",
  reason: null,
  disposable: false,
  role: false,
  catch_all: false,
  is_gibberish: false,
  did_you_mean: null,
  domain_age_days: null,
  has_spf: true,
  dmarc_policy: "reject",
  has_dmarc: true,
  mx_provider: null,
  smtp_reason: null,
  mailbox_confidence: null,
  ...over,
});

type ConfidenceInputs = Parameters<typeof mailboxConfidence>[0];
const neutral = (over: Partial<ConfidenceInputs> = {}): ConfidenceInputs => {
  const {
    deliverable: _d,
    reason: _r,
    mailbox_confidence: _m,
    ...rest
  } = clean({ has_spf: false, dmarc_policy: null, has_dmarc: false });
  return { ...rest, ...over };
};

describe("riskComponents and riskScore", () => {
  it("a clean deliverable answer with SPF and DMARC scores 0, low, with no components", () => {
    const a = clean();
    expect(riskComponents(a)).toEqual({});
    expect(riskScore(a)).toBe(0);
    expect(riskLevel(riskScore(a))).toBe("low");
  });

  it("an undeliverable answer scores 100 with the single component undeliverable", () => {
    const a = clean({ deliverable: "undeliverable", reason: "mailbox_not_found" });
    expect(riskComponents(a)).toEqual({ undeliverable: 100 });
    expect(riskScore(a)).toBe(100);
  });

  it("an undeliverable answer ignores every other signal", () => {
    const a = clean({
      deliverable: "undeliverable",
      disposable: true,
      role: true,
      has_spf: false,
      dmarc_policy: null,
      has_dmarc: false,
    });
    expect(riskComponents(a)).toEqual({ undeliverable: 100 });
  });

  it("disposable alone scores 90, high", () => {
    const a = clean({ deliverable: "risky", reason: "disposable", disposable: true });
    expect(riskComponents(a)).toEqual({ disposable: 90 });
    expect(riskScore(a)).toBe(90);
    expect(riskLevel(riskScore(a))).toBe("high");
  });

  it("catch_all alone scores 35, medium", () => {
    const a = clean({ deliverable: "risky", reason: "catch_all", catch_all: true });
    expect(riskComponents(a)).toEqual({ catch_all: 35 });
    expect(riskScore(a)).toBe(35);
    expect(riskLevel(riskScore(a))).toBe("medium");
  });

  it("role alone scores 25, low", () => {
    const a = clean({ deliverable: "risky", reason: "role", role: true });
    expect(riskComponents(a)).toEqual({ role: 25 });
    expect(riskScore(a)).toBe(25);
    expect(riskLevel(riskScore(a))).toBe("low");
  });

  it("a typo_domain reason scores 60 and replaces the did_you_mean points", () => {
    const a = clean({ deliverable: "risky", reason: "typo_domain", did_you_mean: "a@gmail.com" });
    expect(riskComponents(a)).toEqual({ typo_domain: 60 });
  });

  it("a did_you_mean suggestion without the typo_domain reason scores 20", () => {
    expect(riskComponents(clean({ did_you_mean: "a@gmail.com" }))).toEqual({ did_you_mean: 20 });
  });

  it("gibberish scores 15", () => {
    expect(riskComponents(clean({ is_gibberish: true }))).toEqual({ gibberish: 15 });
  });

  it("an unverified answer scores round(60 x (1 - mailbox_confidence))", () => {
    const a = clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.7 });
    expect(riskComponents(a)).toEqual({ unverified: 18 });
    expect(riskScore(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.05 }))).toBe(57);
    expect(riskScore(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: 0.95 }))).toBe(3);
  });

  it("an unverified answer without a confidence adds no unverified points", () => {
    expect(riskComponents(clean({ deliverable: "risky", reason: "unverified", mailbox_confidence: null }))).toEqual({});
  });

  it("a confidence on a non-unverified answer adds no points", () => {
    expect(riskComponents(clean({ mailbox_confidence: 0.1 }))).toEqual({});
  });

  it("a domain younger than 30 days scores new_domain 20", () => {
    expect(riskComponents(clean({ domain_age_days: 0 }))).toEqual({ new_domain: 20 });
    expect(riskComponents(clean({ domain_age_days: 29 }))).toEqual({ new_domain: 20 });
  });

  it("a domain 30 to 179 days old scores young_domain 10", () => {
    expect(riskComponents(clean({ domain_age_days: 30 }))).toEqual({ young_domain: 10 });
    expect(riskComponents(clean({ domain_age_days: 179 }))).toEqual({ young_domain: 10 });
  });

  it("a domain 180 days or older, or of unknown age, scores nothing for age", () => {
    expect(riskComponents(clean({ domain_age_days: 180 }))).toEqual({});
    expect(riskComponents(clean({ domain_age_days: null }))).toEqual({});
  });

  it("a missing SPF record scores 5, an unknown one nothing", () => {
    expect(riskComponents(clean({ has_spf: false }))).toEqual({ no_spf: 5 });
    expect(riskComponents(clean({ has_spf: null }))).toEqual({});
  });

  it("no DMARC policy scores 5, an unknown one (the query got no answer) nothing", () => {
    expect(riskComponents(clean({ dmarc_policy: null, has_dmarc: false }))).toEqual({ no_dmarc: 5 });
    expect(riskComponents(clean({ dmarc_policy: null, has_dmarc: null }))).toEqual({});
  });

  it("a typo domain that is also on the disposable list is scored once, as the typo", () => {
    const a = clean({ deliverable: "risky", reason: "typo_domain", disposable: true, did_you_mean: "bob@gmail.com" });
    expect(riskComponents(a)).toEqual({ typo_domain: 60 });
    expect(riskScore(a)).toBe(60);
  });

  it("unknown catch-all (no mailbox answer) scores nothing", () => {
    expect(
      riskComponents(clean({ deliverable: "risky", reason: "disposable", disposable: true, catch_all: null })),
    ).toEqual({ disposable: 90 });
  });

  it("any DMARC policy, even none, removes the no_dmarc points", () => {
    expect(riskComponents(clean({ dmarc_policy: "none" }))).toEqual({});
  });

  it("the score is the sum of the components", () => {
    const a = clean({
      deliverable: "risky",
      reason: "role",
      role: true,
      is_gibberish: true,
      has_spf: false,
      dmarc_policy: null,
      has_dmarc: false,
      domain_age_days: 100,
    });
    expect(riskComponents(a)).toEqual({ role: 25, gibberish: 15, young_domain: 10, no_spf: 5, no_dmarc: 5 });
    expect(riskScore(a)).toBe(60);
  });

  it("the score is capped at 100", () => {
    const a = clean({ deliverable: "risky", disposable: true, catch_all: true, role: true });
    expect(Object.values(riskComponents(a)).reduce((s, n) => s + n, 0)).toBe(150);
    expect(riskScore(a)).toBe(100);
  });
});

describe("riskLevel", () => {
  it("0 is low", () => {
    expect(riskLevel(0)).toBe("low");
  });

  it("29 is low and 30 is medium", () => {
    expect(riskLevel(29)).toBe("low");
    expect(riskLevel(30)).toBe("medium");
  });

  it("69 is medium and 70 is high", () => {
    expect(riskLevel(69)).toBe("medium");
    expect(riskLevel(70)).toBe("high");
  });

  it("100 is high", () => {
    expect(riskLevel(100)).toBe("high");
  });
});

describe("mailboxConfidence", () => {
  it("starts at 0.5 with no signal", () => {
    expect(mailboxConfidence(neutral())).toBe(0.5);
  });

  it("adds 0.15 for a major mail provider", () => {
    expect(mailboxConfidence(neutral({ mx_provider: "google" }))).toBe(0.65);
    expect(mailboxConfidence(neutral({ mx_provider: "microsoft" }))).toBe(0.65);
  });

  it("adds nothing for a provider that is not a major one", () => {
    expect(mailboxConfidence(neutral({ mx_provider: "service-test" }))).toBe(0.5);
  });

  it("adds 0.05 for SPF and 0.05 for any DMARC policy", () => {
    expect(mailboxConfidence(neutral({ has_spf: true }))).toBe(0.55);
    expect(mailboxConfidence(neutral({ dmarc_policy: "none" }))).toBe(0.55);
  });

  it("adds 0.1 when greylisted, nothing for a timeout", () => {
    expect(mailboxConfidence(neutral({ smtp_reason: "greylisted" }))).toBe(0.6);
    expect(mailboxConfidence(neutral({ smtp_reason: "timeout" }))).toBe(0.5);
  });

  it("adds 0.05 for a role address", () => {
    expect(mailboxConfidence(neutral({ role: true }))).toBe(0.55);
  });

  it("subtracts 0.25 for gibberish, 0.2 for a typo suggestion, 0.1 for a domain younger than 180 days", () => {
    expect(mailboxConfidence(neutral({ is_gibberish: true }))).toBe(0.25);
    expect(mailboxConfidence(neutral({ did_you_mean: "a@gmail.com" }))).toBe(0.3);
    expect(mailboxConfidence(neutral({ domain_age_days: 179 }))).toBe(0.4);
    expect(mailboxConfidence(neutral({ domain_age_days: 180 }))).toBe(0.5);
  });

  it("rounds to 2 decimals (0.5 + 0.15 + 0.05 is exactly 0.7, not 0.7000000000000001)", () => {
    expect(0.5 + 0.15 + 0.05).not.toBe(0.7);
    expect(mailboxConfidence(neutral({ mx_provider: "google", has_spf: true }))).toBe(0.7);
  });

  it("clamps at the lower bound 0.05", () => {
    // 0.5 - 0.25 - 0.2 - 0.1 = -0.05 before the clamp.
    expect(mailboxConfidence(neutral({ is_gibberish: true, did_you_mean: "a@gmail.com", domain_age_days: 1 }))).toBe(
      0.05,
    );
  });

  it("the most favourable answer stays within the upper bound 0.95", () => {
    const best = mailboxConfidence(
      neutral({ mx_provider: "google", has_spf: true, dmarc_policy: "reject", smtp_reason: "greylisted", role: true }),
    );
    expect(best).toBe(0.9);
    expect(best).toBeLessThanOrEqual(0.95);
  });

  it("round2 rounds to two decimals", () => {
    expect(round2(0.123)).toBe(0.12);
    expect(round2(0.125 + 1e-9)).toBe(0.13);
  });
});
