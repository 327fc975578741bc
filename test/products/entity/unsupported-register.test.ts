import { describe, expect, it } from "vitest";
import { bearer, call, createAccount, json } from "../../helpers";

/** docs/entity.md, "Without `type`": a country with no register here is `unsupported_register` whatever the shape. */
type Answer = { identifier: string; identifier_type: string; found: boolean; reason: string | null; country: string };

describe("POST /api/v1/entity with a country whose register is not supported", () => {
  it("answers a SIREN with FR and HRB 86891 with DE unsupported_register, free, without a type", async () => {
    const acct = await createAccount({ pack: 5 });
    const headers = bearer(acct.key).headers as Record<string, string>;
    for (const [identifier, country] of [
      ["552081317", "FR"],
      ["HRB 86891", "DE"],
    ]) {
      const { status, body } = await call<Answer>("/api/v1/entity", json({ identifier, country }, headers));
      expect(status).toBe(200);
      expect(body.data).toMatchObject({
        identifier,
        identifier_type: "company_number",
        found: false,
        reason: "unsupported_register",
        country,
        sources: [],
      });
      expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
    }
    const none = await call<Answer>("/api/v1/entity", json({ identifier: "552081317" }, headers));
    expect(none.body.data).toMatchObject({ found: false, reason: "invalid_identifier" });
  });
});
