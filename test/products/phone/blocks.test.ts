/**
 * GET /api/v1/phone/block/{country}/{prefix} (products.md "Phone"): the blocks under a national prefix with their type
 * from the plan and carrier and place from the tables, 1 credit when found (7-day repeats free), and
 * 404 PHONE_BLOCK_NOT_FOUND, free, when the country has no plan or no valid number starts with the prefix.
 */
import { beforeAll, describe, expect, it } from "vitest";
import manifest from "../../../datasets/phone/manifest.json";
import { MAX_BLOCKS } from "../../../src/products/phone/blocks";
import { bearer, call, createAccount } from "../../helpers";
import { installPhoneSamples, sampleVersion } from "../../phone-samples";

interface Blocks {
  country: string;
  calling_code: string;
  prefix: string;
  possible_lengths: number[];
  blocks: { prefix: string; line_type: string; carrier: string | null; location: string | null }[];
  truncated: boolean;
  sources: { dataset: string; version: string }[];
}

const blocks = (key: string, country: string, prefix: string) =>
  call<Blocks>(`/api/v1/phone/block/${country}/${prefix}`, bearer(key));

beforeAll(() => installPhoneSamples());

describe("GET /api/v1/phone/block/{country}/{prefix}", () => {
  it("lists the carrier allocations under a mobile prefix, typed by the plan; 1 credit, a repeat free", async () => {
    const acct = await createAccount({ pack: 3 });
    const { status, body } = await blocks(acct.key, "gb", "7406");
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      country: "GB",
      calling_code: "44",
      prefix: "7406",
      possible_lengths: [10],
      truncated: false,
    });
    expect(body.data.blocks.length).toBeGreaterThan(1);
    expect(
      body.data.blocks.every(
        (b) => b.prefix.startsWith("7406") && b.line_type === "mobile" && b.carrier !== null && b.location === null,
      ),
    ).toBe(true);
    expect(body.data.blocks.map((b) => b.prefix)).toEqual([...body.data.blocks.map((b) => b.prefix)].sort());
    expect(body.data.sources).toEqual([
      { dataset: "phone-numbering-plan", version: manifest.datasets[0]!.version, coverage: "full" },
      { dataset: "phone-carriers", version: sampleVersion("phone-carriers"), coverage: "sample" },
      { dataset: "phone-geocodes", version: sampleVersion("phone-geocodes"), coverage: "sample" },
    ]);
    expect(body.meta).toMatchObject({ credits_used: 1, credits_remaining: 2, cache_hit: false });
    const repeat = await blocks(acct.key, "GB", "7406");
    expect(repeat.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 2, cache_hit: true });
  });

  it(
    "answers a prefix inside one allocation as that one block, with the carrier and place of the range holding " + "it",
    async () => {
      const acct = await createAccount({ pack: 3 });
      const mobile = await blocks(acct.key, "GB", "740012");
      expect(mobile.body.data.blocks).toEqual([
        { prefix: "740012", line_type: "mobile", carrier: "Three", location: null },
      ]);
      const london = await blocks(acct.key, "GB", "2079");
      expect(london.body.data.blocks).toEqual([
        { prefix: "2079", line_type: "fixed_line", carrier: null, location: "London" },
      ]);
    },
  );

  it("says a range holding several kinds of number is unknown, and truncates long listings", async () => {
    const acct = await createAccount({ pack: 3 });
    const { body } = await blocks(acct.key, "GB", "1");
    expect(body.data.truncated).toBe(true);
    expect(body.data.blocks).toHaveLength(MAX_BLOCKS);
    expect(body.data.blocks.every((b) => b.prefix.startsWith("1") && b.location !== null)).toBe(true);
    const services = await blocks(acct.key, "GB", "8");
    expect(services.body.data.blocks).toEqual([{ prefix: "8", line_type: "unknown", carrier: null, location: null }]);
  });

  it.each([
    ["ZZ", "1", "a country with no plan"],
    ["GB", "0", "a prefix no valid number starts with"],
    ["GB", "7700900", "the drama range no subscriber holds"],
  ])("answers %s/%s (%s) with 404 PHONE_BLOCK_NOT_FOUND, free", async (country, prefix) => {
    const acct = await createAccount({ pack: 1 });
    const { status, body } = await blocks(acct.key, country, prefix);
    expect([status, body.error.code]).toEqual([404, "PHONE_BLOCK_NOT_FOUND"]);
    const account = await call<{ balance: { total: number } }>("/api/v1/account", bearer(acct.key));
    expect(account.body.data.balance.total).toBe(1);
  });

  it("answers 422 for a prefix that is not digits or a country that is not two letters", async () => {
    const acct = await createAccount({ pack: 1 });
    for (const [country, prefix] of [
      ["GB", "7a"],
      ["GBR", "7"],
      ["GB", "1".repeat(16)],
    ]) {
      const { status, body } = await blocks(acct.key, country!, prefix!);
      expect([status, body.error.code]).toEqual([422, "VALIDATION_FAILED"]);
    }
  });
});
