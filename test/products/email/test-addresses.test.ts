/**
 * Unit tests of src/products/email/test-addresses.ts, driven by the spec (verification-api.md: "Email result", "Test
 * addresses", "POST /api/v1/email" rules) and the bundled dataset snapshots.
 */
import { describe, expect, it } from "vitest";
import testSnapshot from "../../../datasets/snapshots/test-addresses.json";
import { mailboxConfidence, riskLevel, riskScore } from "../../../src/products/email/score";
import { cannedAnswer } from "../../../src/products/email/test-addresses";

const testData = testSnapshot.data as { domain: string; local_parts: string[] };

/** Every field of the spec's "Email result" table. */
const SPEC_FIELDS = [
  "email",
  "normalized_email",
  "is_alias",
  "is_gibberish",
  "deliverable",
  "reason",
  "risk_score",
  "risk_level",
  "syntax_valid",
  "domain",
  "mx_found",
  "mx_implicit",
  "mx_provider",
  "has_spf",
  "dmarc_policy",
  "domain_registered_at",
  "domain_age_days",
  "disposable",
  "role",
  "free_provider",
  "smtp_checked",
  "smtp_checked_at",
  "mailbox_exists",
  "catch_all",
  "smtp_reason",
  "mailbox_confidence",
  "did_you_mean",
  "sources",
] as const;

const canned = (local: string) => cannedAnswer(local, "service.test", `${local}@service.test`);

describe("cannedAnswer (test addresses on service.test)", () => {
  it("the snapshot lists exactly the six spec local parts on service.test", () => {
    expect(testData.domain).toBe("service.test");
    expect([...testData.local_parts].sort()).toEqual([
      "catch-all",
      "deliverable",
      "disposable",
      "role",
      "undeliverable",
      "unverified",
    ]);
  });

  it("deliverable@service.test is deliverable, mailbox confirmed, risk_score 0", () => {
    const r = canned("deliverable")!;
    expect(r.deliverable).toBe("deliverable");
    expect(r.reason).toBeNull();
    expect(r.mailbox_exists).toBe(true);
    expect(r.smtp_checked).toBe(true);
    expect(r.risk_score).toBe(0);
    expect(r.risk_level).toBe("low");
  });

  it("deliverable@service.test carries an ISO 8601 smtp_checked_at", () => {
    const r = canned("deliverable")!;
    expect(r.smtp_checked_at).not.toBeNull();
    expect(new Date(r.smtp_checked_at!).toISOString()).toBe(r.smtp_checked_at);
  });

  it("unverified@service.test is risky, unverified, not checked, greylisted, with a numeric confidence", () => {
    const r = canned("unverified")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("unverified");
    expect(r.smtp_checked).toBe(false);
    expect(r.smtp_reason).toBe("greylisted");
    expect(typeof r.mailbox_confidence).toBe("number");
    expect(r.mailbox_confidence).toBeGreaterThanOrEqual(0.05);
    expect(r.mailbox_confidence).toBeLessThanOrEqual(0.95);
  });

  it("unverified@service.test has mailbox_exists null (POST /email rule 2)", () => {
    expect(canned("unverified")!.mailbox_exists).toBeNull();
  });

  it("catch-all@service.test is risky, catch_all, mailbox_exists null, catch_all true", () => {
    const r = canned("catch-all")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("catch_all");
    expect(r.mailbox_exists).toBeNull();
    expect(r.catch_all).toBe(true);
  });

  it("disposable@service.test is risky, disposable, risk_score 90", () => {
    const r = canned("disposable")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("disposable");
    expect(r.disposable).toBe(true);
    expect(r.risk_score).toBe(90);
  });

  it("role@service.test is risky with reason role", () => {
    const r = canned("role")!;
    expect(r.deliverable).toBe("risky");
    expect(r.reason).toBe("role");
    expect(r.role).toBe(true);
  });

  it("undeliverable@service.test is undeliverable, mailbox_not_found, smtp_reason no_mailbox", () => {
    const r = canned("undeliverable")!;
    expect(r.deliverable).toBe("undeliverable");
    expect(r.reason).toBe("mailbox_not_found");
    expect(r.smtp_reason).toBe("no_mailbox");
    expect(r.mailbox_exists).toBe(false);
  });

  it("only the unverified answer sets mailbox_confidence", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      if (local === "unverified") expect(r.mailbox_confidence, local).not.toBeNull();
      else expect(r.mailbox_confidence, local).toBeNull();
    }
  });

  it("only the catch-all answer has catch_all true; answers without a mailbox answer have it null", () => {
    const expected = (local: string) =>
      local === "catch-all" ? true : local === "disposable" || local === "unverified" ? null : false;
    for (const local of testData.local_parts) expect(canned(local)!.catch_all, local).toBe(expected(local));
  });

  it("every answer has every field of the spec's Email result table", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      for (const field of SPEC_FIELDS) expect(r, `${local}: ${field}`).toHaveProperty(field);
    }
  });

  it("every answer is syntax-valid, on service.test, and not free, gibberish or a typo", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      expect(r.syntax_valid, local).toBe(true);
      expect(r.domain, local).toBe("service.test");
      expect(r.free_provider, local).toBe(false);
      expect(r.is_gibberish, local).toBe(false);
      expect(r.did_you_mean, local).toBeNull();
      expect(r.mx_found, local).toBe(true);
    }
  });

  it("every answer's risk_score, risk_level and confidence are recomputable from its own fields", () => {
    for (const local of testData.local_parts) {
      const r = canned(local)!;
      expect(riskScore(r), local).toBe(r.risk_score);
      expect(riskLevel(r.risk_score), local).toBe(r.risk_level);
      if (r.mailbox_confidence !== null) expect(mailboxConfidence(r), local).toBe(r.mailbox_confidence);
      expect(Number.isInteger(r.risk_score), local).toBe(true);
    }
  });

  it("sources is exactly the test-addresses dataset with the snapshot's version", () => {
    for (const local of testData.local_parts) {
      expect(canned(local)!.sources, local).toEqual([
        { dataset: "test-addresses", version: testSnapshot.version, coverage: "full" },
      ]);
    }
  });

  it("a plus-tagged test address gets the same verdict as the bare one", () => {
    const tagged = cannedAnswer("deliverable+abc", "service.test", "deliverable+abc@service.test")!;
    expect(tagged).not.toBeNull();
    expect(tagged.deliverable).toBe("deliverable");
    expect(tagged.mailbox_exists).toBe(true);
    expect(tagged.risk_score).toBe(0);
  });

  it("a plus-tagged test address keeps the tag in email and drops it in normalized_email", () => {
    const tagged = cannedAnswer("deliverable+abc", "service.test", "deliverable+abc@service.test")!;
    expect(tagged.email).toBe("deliverable+abc@service.test");
    expect(tagged.normalized_email).toBe("deliverable@service.test");
    expect(tagged.is_alias).toBe(true);
  });

  it("plus tags work on every test local part", () => {
    for (const local of testData.local_parts) {
      const bare = canned(local)!;
      const tagged = cannedAnswer(`${local}+tag`, "service.test", `${local}+tag@service.test`)!;
      expect(tagged, local).not.toBeNull();
      expect({ ...tagged, email: bare.email, is_alias: false }, local).toEqual(bare);
    }
  });

  it("a bare test address is not an alias and its normalized form equals its email", () => {
    const r = canned("role")!;
    expect(r.email).toBe("role@service.test");
    expect(r.normalized_email).toBe("role@service.test");
    expect(r.is_alias).toBe(false);
  });

  it("the local part matches regardless of case", () => {
    const r = cannedAnswer("Deliverable", "service.test", "Deliverable@service.test");
    expect(r).not.toBeNull();
    expect(r!.deliverable).toBe("deliverable");
  });

  it("an unknown local part on service.test returns null", () => {
    expect(cannedAnswer("nobody", "service.test", "nobody@service.test")).toBeNull();
    expect(cannedAnswer("deliverables", "service.test", "deliverables@service.test")).toBeNull();
  });

  it("a test local part on another domain returns null", () => {
    expect(cannedAnswer("deliverable", "example.com", "deliverable@example.com")).toBeNull();
    expect(cannedAnswer("deliverable", "sub.service.test", "deliverable@sub.service.test")).toBeNull();
  });

  it("the answer is identical across calls", () => {
    for (const local of testData.local_parts) {
      const first = canned(local);
      const second = canned(local);
      expect(second, local).toEqual(first);
      expect(JSON.stringify(second), local).toBe(JSON.stringify(first));
    }
  });
});
