import { database } from "../../../db/client";
import { databaseOf } from "../../../db/reference";
import { installedSource, type Source } from "../../../engines/sources";
import { ADDRESS_DATASETS } from "../datasets";
import { activeGenerations, installedDatasets, type Generations, type Installed } from "../store";
import { parseQuery } from "./normalise";
import type { AutocompleteInput, AutocompleteResult } from "./result";
import { suggestions } from "./suggestions";

/** The key of a request: its country and its folded query (the 10-minute repeat window is per key). */
export const autocompleteKey = (input: AutocompleteInput) => `${input.country}|${parseQuery(input.q).text}`;

/** Fewer folded characters than this answer `too_short`, free. */
const MIN_CHARACTERS = 3;

const answer = (reason: AutocompleteResult["reason"], sources: Source[] = []): AutocompleteResult => ({
  suggestions: [],
  reason,
  sources,
});

/** Answers that need no dataset: a query too short to suggest from. */
export const tooShort = (input: AutocompleteInput): AutocompleteResult | null =>
  parseQuery(input.q).text.length < MIN_CHARACTERS ? answer("too_short") : null;

/** The installed datasets whose rows cover the country, as `sources` cites them. */
const covering = (installed: Installed, country: string): Source[] =>
  [...installed]
    .filter(([name]) => ADDRESS_DATASETS[name].countries.includes(country))
    .map(([name, dataset]) => installedSource(name, dataset));

/** One request's answer from the index: `not_covered` when no installed dataset covers the country. */
async function complete(
  env: Env,
  { installed, generations }: { installed: Installed; generations: Generations },
  input: AutocompleteInput,
): Promise<AutocompleteResult> {
  const sources = covering(installed, input.country);
  if (!sources.length) return answer("not_covered");
  // The index is read in the address database, in the generation of each installed dataset (read from `DB`).
  const found = await suggestions(databaseOf(env, "address"), {
    country: input.country,
    query: parseQuery(input.q),
    limit: input.limit,
    installed: new Map([...installed.keys()].map((name) => [name, generations.get(name) ?? 0])),
  });
  // Cite the datasets the suggestions came from; with none, every dataset the empty answer speaks for.
  const cited = found.datasets.size ? sources.filter((s) => found.datasets.has(s.dataset)) : sources;
  return { suggestions: found.suggestions, reason: null, sources: cited };
}

/** Fresh answers for these requests, in order: which datasets are installed is read once. */
export async function autocomplete(env: Env, inputs: AutocompleteInput[]): Promise<AutocompleteResult[]> {
  const db = database(env);
  const [installed, generations] = await Promise.all([installedDatasets(db), activeGenerations(db)]);
  return Promise.all(inputs.map((input) => complete(env, { installed, generations }, input)));
}
