import { beforeAll, describe, expect, it } from "vitest";
import type { ConsistencyResult } from "../../../src/products/consistency/result";
import { call, createAccount, json } from "../../helpers";
import { installConsistencySamples, LONDON, ukIp } from "../../consistency-samples";

beforeAll(installConsistencySamples);

/** docs/consistency.md, "Numbering-plan families": a Guernsey number agrees with a British IP and address. */
describe("POST /api/v1/consistency with a Crown Dependency number", () => {
  it("agrees +447911... (GG) with a GB IP and a GB address, both countries shown, 1 credit", async () => {
    const acct = await createAccount({ pack: 3 });
    const phone = `+447911${String(100_000 + Math.floor(Math.random() * 99_999))}`;
    const body = { phone, ip: ukIp(), address: LONDON };
    const { status, body: res } = await call<ConsistencyResult>(
      "/api/v1/consistency",
      json(body, { Authorization: `Bearer ${acct.key}` }),
    );
    expect(status).toBe(200);
    expect(res.data.signals.phone).toMatchObject({ country: "GG", valid: true });
    const phoneChecks = res.data.checks.filter((c) => c.name.startsWith("phone_country"));
    expect(phoneChecks.map((c) => [c.name, c.result, c.reason, c.decided_by])).toEqual([
      [
        "phone_country_matches_ip_country",
        "agree",
        "same_numbering_plan",
        { "phone.country": "GG", "ip.country": "GB" },
      ],
      [
        "phone_country_matches_address_country",
        "agree",
        "same_numbering_plan",
        { "phone.country": "GG", "address.country": "GB" },
      ],
    ]);
    expect(res.data.disagreements).toEqual([]);
    expect(res.data).toMatchObject({ score: 100, level: "consistent" });
    expect(res.data.risk_components).toEqual({});
    expect(res.meta).toMatchObject({ credits_used: 1, credits_remaining: 2 });
  });
});
