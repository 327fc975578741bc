import { fold } from "./names";
import {
  DIRECTIONALS,
  FRENCH_COUNTRIES,
  FRENCH_INDICES,
  FRENCH_NAME_WORDS,
  FRENCH_TYPES,
  GERMAN_COUNTRIES,
  NAME_LEADERS,
  OTHER_DESIGNATORS,
  SUFFIX_COUNTRIES,
  SUFFIXES,
  UNITS,
} from "./street-terms";

/**
 * The address-line half of an address key (docs/address.md, "Address keys"): lines 1 and 2 folded with the street
 * table (street-terms.ts), each word only where its position says what it is. `St` at the end of `12 Elm St` is the
 * suffix STREET; at the start of `St Marks Pl` it is SAINT; `12 Elm Saint` keeps its SAINT. Units (`Apt 4`, `#4`,
 * `Suite 4` in either line) move to the end of the key, so `12 Main St, Apt 4` is `12 Main St #4`.
 */

const hasDigit = (word: string) => /\d/.test(word);
/** A unit's identifier: `4`, `4B`, `B` (a word like `Anne` after `Ste` is a name, not a unit). */
const isUnitId = (word: string) => hasDigit(word) || /^[A-Z]$/.test(word);
const designator = (word: string | undefined) =>
  word === undefined ? undefined : (UNITS[word] ?? OTHER_DESIGNATORS[word]);

/** Upper-case words without punctuation; `#` stays a word, and `P.O. Box`, `POBox`, `Post Office Box` read `PO BOX`. */
function words(line: string): string[] {
  const text = line
    .split("#")
    .map(fold)
    .join(" # ")
    .replace(/\b(P O|POST OFFICE) BOX\b/g, "PO BOX")
    .replace(/\bPOBOX\b/g, "PO BOX");
  return text.split(" ").filter(Boolean);
}

/** A unit at `at`: a designator, an optional `#`, an identifier (`APT 4`, `APT # 4`, `# 4`). Its length, or 0. */
function unitAt(tokens: string[], at: number): number {
  if (!designator(tokens[at])) return 0;
  const hash = tokens[at] !== "#" && tokens[at + 1] === "#" ? 1 : 0;
  const id = tokens[at + 1 + hash];
  return id !== undefined && isUnitId(id) ? 2 + hash : 0;
}

const unitKey = (tokens: string[]) => `${designator(tokens[0])} ${tokens.at(-1)}`;

/** Units at the start and at the end of a line (never inside a street's name), and what is left. */
function takeUnits(line: string): { rest: string[]; units: string[] } {
  let tokens = words(line);
  const units: string[] = [];
  for (let n = unitAt(tokens, 0); n > 0; n = unitAt(tokens, 0)) {
    units.push(unitKey(tokens.slice(0, n)));
    tokens = tokens.slice(n);
  }
  const tail: string[] = [];
  for (;;) {
    const start = [3, 2].map((n) => tokens.length - n).find((s) => s >= 0 && unitAt(tokens, s) === tokens.length - s);
    if (start === undefined) break;
    tail.unshift(unitKey(tokens.slice(start)));
    tokens = tokens.slice(0, start);
  }
  return { rest: tokens, units: [...units, ...tail] };
}

/**
 * English-speaking countries (USPS Publication 28, Royal Mail): [number] [pre-directional] name [suffix]
 * [post-directional]. A word is folded only in its position, and only when a name is left beside it: in `12 N St`
 * the N is the name (N Street), in `12 N Main St` it is NORTH.
 */
function suffixRules(t: string[]): string[] {
  const out = [...t];
  const start = out[0] !== undefined && hasDigit(out[0]) ? 1 : 0;
  let end = out.length;
  const suffixBefore = (at: number) => at - 1 > start && SUFFIXES[out[at - 1]!] !== undefined;
  const last = out[end - 1];
  if (last !== undefined && DIRECTIONALS[last] && (suffixBefore(end - 1) || end - 1 - start >= 2))
    out[--end] = DIRECTIONALS[last]!;
  const suffix = out[end - 1];
  if (suffix !== undefined && end - 1 > start && SUFFIXES[suffix]) out[--end] = SUFFIXES[suffix]!;
  let nameStart = start;
  const first = out[nameStart];
  if (first !== undefined && end - nameStart >= 2 && DIRECTIONALS[first]) out[nameStart++] = DIRECTIONALS[first]!;
  const leader = out[nameStart];
  if (leader !== undefined && end - nameStart >= 2 && NAME_LEADERS[leader]) out[nameStart] = NAME_LEADERS[leader]!;
  return out;
}

/** French: number [bis|ter|quater] type name (`12 bis Bd St-Michel` = `12 BIS BOULEVARD SAINT MICHEL`). */
function frenchRules(t: string[]): string[] {
  const out = t.flatMap((word, i) => {
    const glued = i === 0 ? /^(\d+)(BIS|TER|QUATER|B|T|Q)$/.exec(word) : null;
    return glued ? [glued[1]!, glued[2]!] : [word];
  });
  let at = out[0] !== undefined && hasDigit(out[0]) ? 1 : 0;
  const index = out[at];
  if (at === 1 && index !== undefined && FRENCH_INDICES[index] && out.length > 2) out[at++] = FRENCH_INDICES[index]!;
  const type = out[at];
  if (type !== undefined && at + 1 < out.length && FRENCH_TYPES[type]) out[at++] = FRENCH_TYPES[type]!;
  for (let i = at; i < out.length; i++) out[i] = FRENCH_NAME_WORDS[out[i]!] ?? out[i]!;
  return out;
}

/** German: the street's last word before the number, `Str.` or `...str.`, is `Straße` (`Hauptstr. 5`). */
function germanRules(t: string[]): string[] {
  const out = [...t];
  const at = out.findLastIndex((word) => !hasDigit(word));
  const word = out[at];
  if (word !== undefined && word.endsWith("STR")) out[at] = `${word}ASSE`;
  return out;
}

function streetRules(country: string): (tokens: string[]) => string[] {
  if (SUFFIX_COUNTRIES.has(country)) return suffixRules;
  if (FRENCH_COUNTRIES.has(country)) return frenchRules;
  if (GERMAN_COUNTRIES.has(country)) return germanRules;
  return (tokens) => tokens;
}

/** Lines 1 and 2 as keyed: the street lines folded (an empty line 1 takes line 2's place), the units after line 1. */
export function lineKeys(country: string, line1: string | null, line2: string | null): [string, string] {
  const rules = streetRules(country);
  const read = [line1, line2].map((line) => takeUnits(line ?? ""));
  const streets = read.map((r) => rules(r.rest).join(" ")).filter(Boolean);
  const units = read.flatMap((r) => r.units);
  return [[streets[0] ?? "", ...units].join(" ").trim(), streets.slice(1).join(" ")];
}
