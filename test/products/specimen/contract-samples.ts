import { admin } from "../../helpers";
import { rand, type ContractSamples, type Samples } from "../../contract/samples";

/** The roots the samples' paid words start with, installed by the product's own operator route. */
export const installRoots = () =>
  admin("PUT", "/specimen-roots", {
    version: "2026-11-29",
    coverage: { kind: "full" },
    roots: [
      { root: "oak", meaning: "a tree" },
      { root: "elm", meaning: "another tree" },
    ],
  });

/** A word of an installed root costs a credit; any other root is free; `test-...` words are the test values. */
const samples: Samples = {
  paid: (n) => Array.from({ length: n }, (_, i) => `oak-${rand()}${i}`),
  respell: (value) => ` ${String(value).toUpperCase()} `,
  free: () => `nothing-${rand()}`,
  malformed: () => `bad_${rand()}`,
  test: () => `test-${rand()}`,
  gone: null,
  setup: async () => void (await installRoots()),
};

/** The test-only product's contract samples (test/contract/): its values, one valid request per single and batch. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "POST /specimen": { body: { word: "elm-1" } },
    "POST /specimen/batch": { body: { words: ["elm-2", "nothing-1"] } },
  },
};
