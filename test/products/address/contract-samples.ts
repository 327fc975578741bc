import { installAddressData } from "../../address-samples";
import { rand, type ContractSamples, type Samples } from "../../contract/samples";

/** Verified US addresses differ by line 1; an Italian one can only be format-checked; a four-digit ZIP is malformed. */
const samples: Samples = {
  paid: (n) =>
    Array.from({ length: n }, (_, i) => ({
      line1: `${i} ${rand()} Main St`,
      locality: "Springfield",
      region: "IL",
      postcode: "62701",
      country: "US",
    })),
  respell: (value) => {
    const a = value as Record<string, string>;
    return { ...a, line1: a.line1!.toUpperCase(), locality: "springfield", postcode: " 62701" };
  },
  free: () => ({ line1: `Via ${rand()} 1`, locality: "Roma", postcode: "00184", country: "IT" }),
  malformed: () => ({
    line1: `${rand()} Main St`,
    locality: "Springfield",
    region: "IL",
    postcode: "6270",
    country: "US",
  }),
  test: () => ({ line1: "verified", locality: rand(), country: "ZZ" }),
  gone: null,
  counters: {
    paid: ["valid", "low"],
    free: ["valid", "medium"],
    malformed: ["invalid", "high"],
    test: ["valid", "low"],
  },
  policy: {
    rules: { verification: { format_only: "review" } },
    action: "review",
    on: ["free"],
    rulesHit: ["verification.format_only"],
  },
  feedback: { marking: { outcome: "returned", kind: null }, harmless: { outcome: "delivered", kind: null } },
  batch: { path: "/api/v1/address/batch", field: "addresses" },
  setup: async () => void (await installAddressData()),
};

/** Address's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /address": { body: { address: "10 Downing Street, London SW1A 2AA", country: "GB" } },
    "POST /address/batch": { body: { addresses: ["10 Downing Street, London SW1A 2AA"], country: "GB" } },
  },
};
