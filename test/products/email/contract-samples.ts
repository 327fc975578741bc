import { rand, type ContractSamples, type Samples } from "../../contract/samples";

const samples: Samples = {
  paid: (n) => Array.from({ length: n }, (_, i) => `p${rand()}${i}@catchall.example`),
  respell: (value) => `Copy <${String(value).toUpperCase()}>`,
  free: () => `x${rand()}@nomail.example`,
  malformed: () => `bad-${rand()}`,
  test: () => `deliverable+${rand()}@service.test`,
  gone: () => `nobody${rand()}@acme.example`,
  counters: {
    paid: "risky",
    free: "undeliverable",
    malformed: "undeliverable",
    test: "deliverable",
    gone: "undeliverable",
  },
  policy: {
    rules: { deliverable: { risky: "block" } },
    action: "block",
    on: ["paid"],
    rulesHit: ["deliverable.risky"],
  },
  feedback: { marking: { outcome: "bounced", kind: "hard" }, harmless: { outcome: "bounced", kind: "soft" } },
  batch: { path: "/api/v1/email/batch", field: "emails" },
};

/** Email's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /email": { body: { email: "deliverable@service.test" } },
    "POST /email/batch": { body: { emails: ["deliverable@service.test", "no-mx@service.test"] } },
  },
};
