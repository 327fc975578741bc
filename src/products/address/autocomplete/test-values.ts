import { TEST_SOURCE } from "../test-addresses";
import type { AutocompleteInput, AutocompleteResult } from "./result";

/**
 * Test values (docs/address.md, "Autocomplete"): country `ZZ`, as the address product's test addresses. Any query of
 * 3 characters or more answers the same two suggestions, free, with no dataset read; they are the sandbox key's too.
 */
export const TEST_COUNTRY = "ZZ";

export const isTestQuery = (input: Pick<AutocompleteInput, "country">) => input.country === TEST_COUNTRY;

export const TEST_QUERIES: readonly AutocompleteInput[] = [{ q: "1 test", country: TEST_COUNTRY, limit: 5 }];

export const testAnswer = (input: AutocompleteInput): AutocompleteResult => ({
  suggestions: [
    {
      text: "1 Test Street, Testville ZZ1 1ZZ",
      line1: "1 Test Street",
      locality: "Testville",
      region: null,
      postcode: "ZZ1 1ZZ",
      country: "ZZ",
      precision: "premise" as const,
      id: "ZZ|street|ZZ1 1ZZ|TEST STREET|1",
    },
    {
      text: "Testville ZZ1 1ZZ",
      line1: null,
      locality: "Testville",
      region: null,
      postcode: "ZZ1 1ZZ",
      country: "ZZ",
      precision: "postcode" as const,
      id: "ZZ|postcode|ZZ1 1ZZ|Testville",
    },
  ].slice(0, input.limit),
  reason: null,
  sources: [TEST_SOURCE],
});
