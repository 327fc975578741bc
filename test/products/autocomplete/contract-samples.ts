import { installSamples } from "../../address-samples";
import { rand, type ContractSamples, type Samples } from "../../contract/samples";

const query = (q: string, country = "FR") => ({ q, country, limit: 5 });

/**
 * Answered French queries cost a unit (ten a credit), found or not; an Italian one is not covered and a two-letter one
 * too short (both free); country `ZZ` is the test values'.
 */
const samples: Samples = {
  paid: (n) => Array.from({ length: n }, (_, i) => query(`rue ${rand()}${i}`)),
  respell: (value) => {
    const v = value as { q: string };
    return { ...v, q: ` ${v.q.toUpperCase()} ` };
  },
  free: () => query(`via ${rand()}`, "IT"),
  malformed: () => query("--"),
  test: () => query(`1 test ${rand()}`, "ZZ"),
  gone: null,
  setup: installSamples,
};

/** Autocomplete's contract samples (test/contract/): its values, and one valid request per single route. */
export const contract: ContractSamples = {
  samples,
  requests: {
    "GET /address/autocomplete": { path: "/address/autocomplete?q=rue+de+rivoli&country=FR" },
  },
};
