import { fold, placeKey, streetKey } from "../names";

/**
 * How a typed query and the datasets' names become comparable tokens (docs/address.md, "Autocomplete"): the address
 * product's folding (accents, case, punctuation: `names.ts`) and its street-type abbreviations (`bd` -> `BOULEVARD`,
 * `av` -> `AVENUE`, `rd` -> `ROAD`, `st` -> `STREET`), so a query and an entry fold the same way. Articles are kept in
 * an entry's text but never indexed: `de` or `la` would match half of France.
 */

const UNINDEXED = new Set(["A", "AU", "AUX", "D", "DE", "DES", "DU", "EN", "ET", "L", "LA", "LE", "LES", "OF", "THE"]);
/** A house number with its BAN suffix, glued (`12BIS`) or apart (`12 bis`): `12 BIS`, as the premises spell it. */
const NUMBER = /^(\d{1,4})(BIS|TER|QUATER|[A-Z])?$/;
const SUFFIX = /^(BIS|TER|QUATER|[A-Z])$/;

export interface Query {
  /** The query's words after the house number, folded as street keys are. */
  words: string[];
  /** The house number as the BAN's premises spell it (`55`, `55 BIS`), when the query starts with one. */
  number: string | null;
  /** The folded query, whose length decides `too_short`. */
  text: string;
}

/** Reads a typed query: folded words, and a leading house number (1-4 digits, then more words) split off. */
export function parseQuery(q: string): Query {
  const words = streetKey(q).split(" ").filter(Boolean);
  const text = words.join(" ");
  const first = NUMBER.exec(words[0] ?? "");
  if (!first || words.length < 2) return { words, number: null, text };
  let suffix = first[2] ?? "";
  let rest = words.slice(1);
  if (!suffix && rest.length > 1 && SUFFIX.test(rest[0]!)) {
    suffix = rest[0]!;
    rest = rest.slice(1);
  }
  return { words: rest, number: suffix ? `${first[1]} ${suffix}` : first[1]!, text };
}

/** The word a query's index read starts from: its longest indexed word (the rarest, as a rule), else its longest. */
export function drivingWord(words: readonly string[]): string | null {
  const ranked = [...words].sort((a, b) => b.length - a.length);
  return ranked.find((w) => !UNINDEXED.has(w)) ?? ranked[0] ?? null;
}

const compact = (postcode: string) => fold(postcode).replaceAll(" ", "");

/** An entry's tokens: its indexed words and its postcode, whole and in parts (`SW1A 2AA`: `SW1A2AA`, `SW1A`, `2AA`). */
export function entryTokens(name: string, postcode: string): string[] {
  const words = name.split(" ").filter((w) => w && !UNINDEXED.has(w));
  return [...new Set([...words, compact(postcode), ...fold(postcode).split(" ").filter(Boolean)])];
}

/** The folded text a query's words are matched against: the name's key, the postcode both ways, the place. */
export const entrySearch = (key: string, postcode: string, locality: string | null) =>
  [key, fold(postcode), compact(postcode), locality ? placeKey(locality) : ""].filter(Boolean).join(" ");

export { placeKey, streetKey };
