import { lookupRoute, type LookupDeclarations } from "../../../engines/lookup-declarations";
import { autocompleteInput, autocompleteResultSchema, type AutocompleteInput, type AutocompleteResult } from "./result";

/** The repeat window of autocomplete: the same query for the same country within it is free (not the usual 7 days). */
const REPEAT_SECONDS = 600;

const ANSWER =
  "Suggestions ranked best first: a listed house number on a street the query starts, then such streets, streets " +
  "the words are inside of, places by name, then postcodes; each with its `precision` (`premise`, `street`, " +
  "`postcode`). `reason`: `not_covered` (no installed dataset covers the country: an empty list) or `too_short` " +
  '(fewer than 3 characters); `sources` cite the datasets with their `coverage` (docs/address.md, "Autocomplete").';
const COST =
  "Ten answered requests cost 1 credit, counted in the account's prepaid units; answers with a `reason`, test " +
  "values (country `ZZ`) and the same query for the same country within 10 minutes are free.";

/** Autocomplete's lookups (docs/address.md, "Autocomplete"): a secret-key GET and the browser endpoint. */
export const autocompleteDeclarations: LookupDeclarations = {
  tag: "Address autocomplete",
  routes: [
    lookupRoute<AutocompleteInput, AutocompleteResult, unknown, unknown, AutocompleteInput>({
      kind: "single",
      method: "get",
      path: "/address/autocomplete",
      operationId: "autocompleteAddress",
      tool: {
        title: "Suggest postal addresses for a partial query",
        description:
          "Ranked address suggestions (house number and street, then places and postcodes) for what a person has " +
          "typed so far in one country, from the installed address datasets. reason `not_covered` or `too_short` " +
          "answers an empty list, free. Ten answered requests cost 1 credit; a repeat within 10 minutes is free.",
        openWorld: false,
        testValues: true,
      },
      summary: "Address suggestions for a partial query; 10 answered requests per credit",
      description: `\`q\` is what was typed so far, \`country\` the ISO 3166-1 alpha-2 code. ${ANSWER} ${COST}`,
      sandbox: true,
      request: { query: autocompleteInput },
      inputs: ({ query }) => [query],
      options: () => ({ maxAgeSeconds: REPEAT_SECONDS }),
      response: autocompleteResultSchema,
      prepaid: "autocomplete_prepaid",
    }),
    lookupRoute<AutocompleteInput, AutocompleteResult, AutocompleteInput>({
      kind: "browser",
      method: "post",
      path: "/address/autocomplete/public",
      operationId: "autocompleteAddressPublic",
      summary: "Browser autocomplete with a publishable key; answers without meta",
      description:
        `Authenticated by \`key\` in the body and the \`Origin\` header, with the visitor budget and challenge of ` +
        `every browser endpoint; billed to the key's account like \`GET /address/autocomplete\`. ${ANSWER}`,
      request: { json: autocompleteInput },
      inputs: ({ json }) => [json],
      options: () => ({ maxAgeSeconds: REPEAT_SECONDS }),
      response: autocompleteResultSchema,
    }),
  ],
};
