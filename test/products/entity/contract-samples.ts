import { rand, type ContractSamples, type Samples } from "../../contract/samples";
import { installSamples, makeLei, sampleRows } from "../../entity-samples";

const samples: Samples = {
  paid: (n) =>
    sampleRows("gleif-lei")
      .slice(0, n)
      .map((row) => row.identifier),
  respell: (value) => ` ${String(value).toLowerCase()} `,
  free: () => makeLei(`FREE${rand().toUpperCase()}00`),
  malformed: () => `bad-${rand()}`,
  test: null,
  gone: null,
  batch: { path: "/api/v1/entity/batch", field: "identifiers" },
  setup: async () => void (await installSamples()),
};

/** Entity's contract samples (test/contract/): its values, and one valid request per single and batch route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /entity": { body: { identifier: "529900T8BM49AURSDO55" } },
    "POST /entity/batch": { body: { identifiers: ["529900T8BM49AURSDO55", "not an lei"] } },
  },
};
