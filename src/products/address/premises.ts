import { premiseNumber } from "./file-formats";
import { findPremises, type PremiseQuery } from "./premise-store";
import type { AddressData } from "./store";

/**
 * Premise precision (docs/address.md, "How an answer is made"): line 1's house number looked up on the street found,
 * among the numbers a premise register (the BAN) lists. A number it lists makes the answer `premise`; one it does not
 * leaves it at `street`, so the two are told apart.
 */

/** The house number line 1 starts with (`12`, `12 bis`, `12B`, `12-14` reads 12), in `premiseNumber`'s spelling. */
export function houseNumber(line1: string | null): string | null {
  const match = /^\s*(\d{1,5})(?:\s*(bis|ter|quater|quinquies|[a-z])\b)?/i.exec(line1 ?? "");
  return match ? premiseNumber(match[1]!, match[2] ?? "") : null;
}

/** One address whose street was found: its country, the postcode streets are filed under, the street keys found. */
export interface PremiseAsk {
  country: string;
  postcode: string;
  keys: string[];
  line1: string | null;
}

/**
 * For each address (null: no street found, or no premise register covers the country): whether its house number is
 * listed on one of its found streets. An address without a number answers false: it is not located to a premise.
 */
export async function premisesFound(
  data: AddressData,
  datasetsOf: (country: string) => string[],
  asks: (PremiseAsk | null)[],
): Promise<(boolean | null)[]> {
  const queries = asks.map((a) => (a && datasetsOf(a.country).length ? { ...a, number: houseNumber(a.line1) } : null));
  const byCountry = new Map<string, PremiseQuery[]>();
  for (const q of queries)
    if (q?.number)
      byCountry.set(q.country, [
        ...(byCountry.get(q.country) ?? []),
        { postcode: q.postcode, keys: q.keys, number: q.number },
      ]);
  const listed = new Map(
    await Promise.all(
      [...byCountry].map(
        async ([country, qs]) => [country, await findPremises(data, country, datasetsOf(country), qs)] as const,
      ),
    ),
  );
  return queries.map((q) => {
    if (!q) return null;
    if (!q.number) return false;
    return q.keys.some((key) => listed.get(q.country)!.has(`${q.postcode}|${key}|${q.number}`));
  });
}
