/**
 * The accuracy set (test/fixtures/address-accuracy.json, built by datasets/address/accuracy.mjs from the installed
 * packages' own files): real postcode/locality pairs, pairs made wrong on purpose and malformed codes, sent through
 * POST /address/batch against the reference rows a full import holds for them. Agreement is printed for the record.
 */
import { beforeAll, describe, expect, it } from "vitest";
import accuracy from "../../fixtures/address-accuracy.json";
import { anotherKey, call, createAccount, json, type TestAccount } from "../../helpers";
import { installReference } from "../../address-samples";

let acct: TestAccount;
beforeAll(async () => {
  await installReference();
  acct = await createAccount({ pack: 1_000 });
});

type Answer = { postcode_found: boolean | null; locality_matches_postcode: boolean | null; reason: string | null };

async function answers(
  items: { country: string; postcode: string; locality?: string; region?: string | null }[],
): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < items.length; i += 100) {
    const addresses = items.slice(i, i + 100).map((p) => ({
      line1: "1 Test Street",
      locality: p.locality ?? "Testville",
      region: p.region ?? null,
      postcode: p.postcode,
      country: p.country,
    }));
    const { body } = await call<{ results: { data: Answer }[] }>(
      "/api/v1/address/batch",
      json({ addresses }, { Authorization: `Bearer ${await anotherKey(acct)}` }),
    );
    out.push(...body.data.results.map((r) => r.data));
  }
  return out;
}

const share = (n: number, of: number) => Math.round((1000 * n) / of) / 10;

describe("accuracy set", () => {
  it("finds the postcodes of real pairs and agrees on their locality", async () => {
    const results = await answers(accuracy.pairs);
    const byCountry = ["US", "FR", "DE"].map((country) => {
      const own = accuracy.pairs.map((p, i) => [p, results[i]!] as const).filter(([p]) => p.country === country);
      const found = own.filter(([, r]) => r.postcode_found).length;
      const agree = own.filter(([, r]) => r.locality_matches_postcode).length;
      return {
        country,
        pairs: own.length,
        found,
        agree,
        disagree: own
          .filter(([p, r]) => r.locality_matches_postcode === false && p)
          .map(([p]) => `${p.postcode} ${p.locality}`),
      };
    });
    const total = byCountry.reduce((sum, c) => sum + c.pairs, 0);
    const agree = byCountry.reduce((sum, c) => sum + c.agree, 0);
    console.log(
      `[accuracy] ${agree}/${total} pairs agree (${share(agree, total)}%): ${byCountry
        .map((c) => `${c.country} ${c.agree}/${c.pairs} found ${c.found}`)
        .join(", ")}`,
    );
    for (const c of byCountry)
      if (c.disagree.length) console.log(`[accuracy] ${c.country} disagreements: ${c.disagree.join("; ")}`);
    expect(total).toBeGreaterThanOrEqual(200);
    expect(agree / total).toBeGreaterThanOrEqual(0.95);
    for (const c of byCountry) expect(c.found / c.pairs).toBeGreaterThanOrEqual(0.95);
  });

  it("flags every pair made wrong on purpose as locality_mismatch", async () => {
    const results = await answers(accuracy.mismatches);
    expect(results.map((r) => r.reason)).toEqual(accuracy.mismatches.map((m) => m.expected));
  });

  it("flags every malformed code as invalid_postcode_format", async () => {
    const results = await answers(accuracy.malformed);
    expect(results.map((r) => r.reason)).toEqual(accuracy.malformed.map((m) => m.expected));
  });
});
