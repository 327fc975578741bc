import { describe, expect, it } from "vitest";
import { csvCell } from "../../../src/engines/bulk/csv";
import { bearer, call, createAccount } from "../../helpers";

describe("since / until", () => {
  it.each([
    "2026-02-30",
    "2026-13-01",
    "2026-04-31",
    "0",
    "1",
    "2026-1-05",
    "2026-02-28T25:00:00Z",
    "2026-02-30T10:00:00Z",
    "March 3, 2026",
    "2026-02-28T10:00",
  ])("answers 422 VALIDATION_FAILED to since=%s", async (value) => {
    const acct = await createAccount();
    const { status, body } = await call(`/api/v1/email/bulk?since=${encodeURIComponent(value)}`, bearer(acct.key));
    expect(status).toBe(422);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.errors).toHaveProperty("since");
  });

  it.each(["2024-02-29", "2026-02-28", "2026-02-28T10:00:00Z", "2026-02-28T10:00:00.123+02:00"])(
    "accepts since=%s and until=%s",
    async (value) => {
      const acct = await createAccount();
      const q = encodeURIComponent(value);
      expect((await call(`/api/v1/email/bulk?since=${q}&until=${q}`, bearer(acct.key))).status).toBe(200);
    },
  );

  it("answers 422 to an impossible until", async () => {
    const acct = await createAccount();
    const { status, body } = await call("/api/v1/email/history?until=2025-02-29", bearer(acct.key));
    expect(status).toBe(422);
    expect(body.error.errors).toHaveProperty("until");
  });
});

describe("CSV cells", () => {
  it.each(["=1+2", "+1+2", "-1+A1", "@SUM(A1)", "  =1+2", " \t+cmd", "\t=x", "\r=x", "\n-1"])(
    "neutralises %j",
    (value) => {
      expect(csvCell(value).replace(/^"/, "").startsWith("'")).toBe(true);
    },
  );

  it("leaves ordinary cells alone", () => {
    expect(csvCell("ann@example.com")).toBe("ann@example.com");
    expect(csvCell(" ann")).toBe(" ann");
    expect(csvCell(-1)).toBe("-1");
    // A signed number is data (an E.164 phone number, a negative longitude), not a formula (docs/api-decisions.md).
    expect([csvCell("+447400123456"), csvCell("-1"), csvCell("-0.5")]).toEqual(["+447400123456", "-1", "-0.5"]);
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
  });
});
