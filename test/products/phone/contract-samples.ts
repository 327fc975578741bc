import { rand, type ContractSamples, type Samples } from "../../contract/samples";
import { digits, installPhoneSamples, ukMobile } from "../../phone-samples";

/** UK mobiles from the committed sample cost a credit; a number cut short is invalid and free. */
const samples: Samples = {
  paid: (n) => Array.from({ length: n }, () => ukMobile()),
  respell: (value) => `tel:${String(value).slice(0, 3)} (${String(value).slice(3, 7)}) ${String(value).slice(7)}`,
  // Possible but not valid (the drama range outside the test numbers): answered from the plan alone, free.
  free: () => `+447700950${digits(3)}`,
  malformed: () => `bad-${rand()}`,
  test: () => "+447700900000",
  // No phone answer joins the list by itself (delivery feedback adds `undelivered`): the manual list is tested.
  gone: null,
  counters: { paid: ["valid", "mobile"], free: "invalid", malformed: "invalid", test: ["valid", "mobile"] },
  policy: {
    rules: { reasons: { invalid_number: "block" } },
    action: "block",
    on: ["free", "malformed"],
    rulesHit: ["reasons.invalid_number"],
  },
  feedback: { marking: { outcome: "failed", kind: "permanent" }, harmless: { outcome: "failed", kind: "temporary" } },
  batch: { path: "/api/v1/phone/batch", field: "phones" },
  setup: installPhoneSamples,
};

/** Phone's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /phone": { body: { phone: "+447400123456" } },
    "POST /phone/batch": { body: { phones: ["+447400123456", { phone: "020 7946 0000", country: "GB" }] } },
  },
};
