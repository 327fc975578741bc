import { parse } from "tldts";
import { freeProviderDomains, typoData } from "./datasets";

/**
 * Typo corrections (dataset `typo-domains`): a known misspelling of a popular mail domain is a typo-squat and settles
 * the answer; a domain one edit away from a popular one only earns a suggestion. A domain whose top-level label is no
 * TLD at all (`gnail.con`) cannot be anyone's real domain, so there two edits away from a major provider also earn one.
 */

/** The major providers two-edit typos are matched against (a short list keeps two edits from reaching real domains). */
export const MAJOR_PROVIDERS = [
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "hotmail.com",
  "outlook.com",
  "live.com",
  "msn.com",
  "icloud.com",
  "aol.com",
  "protonmail.com",
  "proton.me",
  "gmx.com",
  "gmx.de",
  "web.de",
  "yandex.ru",
  "mail.ru",
  "comcast.net",
  "verizon.net",
  "hotmail.co.uk",
  "yahoo.co.uk",
  "btinternet.com",
  "orange.fr",
  "libero.it",
  "zoho.com",
];
export interface TypoCheck {
  suggestion: string | null;
  /** The domain is a known misspelling (listed in the dataset's corrections). */
  typoSquat: boolean;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring), capped at 2. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** checkTypo depends on the domain alone (the dataset is fixed per isolate): remembered per domain, bounded. */
const memo = new Map<string, TypoCheck>();
const MEMO_MAX = 50_000;

export function checkTypo(domain: string): TypoCheck {
  const known = memo.get(domain);
  if (known) return known;
  const found = computeTypo(domain);
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
  memo.set(domain, found);
  return found;
}

function computeTypo(domain: string): TypoCheck {
  const { corrections, targets, targetSet } = typoData();
  const corrected = corrections.get(domain);
  if (corrected) return { suggestion: corrected, typoSquat: true };
  if (targetSet.has(domain) || freeProviderDomains().has(domain) || domain.length < 6)
    return { suggestion: null, typoSquat: false };
  const near = targets.find((target) => editDistance(domain, target) === 1);
  if (near) return { suggestion: near, typoSquat: false };
  const twoEdits = parse(domain).isIcann
    ? undefined
    : MAJOR_PROVIDERS.find((target) => editDistance(domain, target) === 2);
  return { suggestion: twoEdits ?? null, typoSquat: false };
}
