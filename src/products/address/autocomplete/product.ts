import type { Product } from "../../../engines/product";
import { ADDRESS_DATASET_NAMES } from "../datasets";
import { TEST_SOURCE } from "../test-addresses";
import { autocomplete, autocompleteKey, tooShort } from "./lookup";
import { autocompleteInput, type AutocompleteInput, type AutocompleteResult } from "./result";
import { isTestQuery, TEST_QUERIES, testAnswer } from "./test-values";

/**
 * Address autocomplete (docs/address.md, "Autocomplete"): suggestions from the address datasets' index as a visitor
 * types. Ten answered requests cost one credit (the account's prepaid units, as IP's five); `too_short`,
 * `not_covered`, test values and a repeat of the same query for the same country within 10 minutes (the routes' walk
 * option) are free. It is reached with the `address` scope: it reads the address product's datasets.
 */
export const autocompleteProduct: Product<AutocompleteInput, AutocompleteResult> = {
  name: "autocomplete",
  scope: "address",
  input: autocompleteInput,
  unitsPerCredit: 10,
  cost: "local",
  normalize: autocompleteKey,
  async local(input) {
    if (isTestQuery(input)) return { result: tooShort(input) ?? testAnswer(input), test: true };
    const short = tooShort(input);
    return short ? { result: short, test: false } : null;
  },
  lookup: (ctx, inputs) => autocomplete(ctx.env, inputs).then((results) => results.map((result) => ({ result }))),
  price: (result) => ({ units: result.reason === null ? 1 : 0 }),
  repeatable: (result) => result.reason === null,
  // A repeat is read again (a limit may differ, a generation may have switched) and only its price is waived.
  repeats: "fresh",
  isSample: isTestQuery,
  samples: TEST_QUERIES,
  datasets: [...ADDRESS_DATASET_NAMES, TEST_SOURCE.dataset],
};
