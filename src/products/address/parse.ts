import { findPostcode } from "./postcodes";
import { fold } from "./names";
import { isOneLine, type AddressInput, type NormalizedAddress } from "./result";

/** Countries whose postal standard requires the state or province next to the locality. */
export const REGION_REQUIRED = new Set(["US", "CA", "AU"]);

/** Whitespace collapsed, wrapping commas and spaces trimmed; empty becomes null. */
export function clean(value: string | null | undefined): string | null {
  const text = (value ?? "").replace(/\s+/g, " ").replace(/^[\s,;]+|[\s,;]+$/g, "");
  return text === "" ? null : text;
}

/** Two letters in upper case; `UK` (reserved by ISO for the United Kingdom) reads as `GB`. */
export function countryCode(value: string): string {
  const code = value.trim().toUpperCase();
  return code === "UK" ? "GB" : code;
}

/** Names people write for a country at the end of a one-line address. */
const COUNTRY_WORDS: Record<string, string[]> = {
  US: ["USA", "US", "UNITED STATES", "UNITED STATES OF AMERICA"],
  GB: ["UK", "GB", "UNITED KINGDOM", "GREAT BRITAIN", "ENGLAND", "SCOTLAND", "WALES", "NORTHERN IRELAND"],
  FR: ["FRANCE", "FR"],
  DE: ["GERMANY", "DEUTSCHLAND", "DE"],
};

const regionLike = (word: string) => /^[A-Za-z]{2,3}$/.test(word);

/** Reads the parts of the segment that held the postcode and the segments before it (see `readOneLine`). */
function placeParts(rest: string | null, before: string[], country: string) {
  const needsRegion = REGION_REQUIRED.has(country);
  if (rest && needsRegion) {
    const words = rest.split(" ");
    if (words.length > 1 && regionLike(words.at(-1)!))
      return { locality: words.slice(0, -1).join(" "), region: words.at(-1)!, used: 0 };
    if (before.length > 1) return { locality: before.at(-1)!, region: rest, used: 1 };
  }
  if (rest) return { locality: rest, region: null, used: 0 };
  const previous = before.at(-1) ?? null;
  if (needsRegion && previous && regionLike(previous) && before.length > 2)
    return { locality: before.at(-2)!, region: previous, used: 2 };
  return before.length > 1 ? { locality: previous, region: null, used: 1 } : { locality: null, region: null, used: 0 };
}

/**
 * A one-line address read into its parts. The postcode is the last stretch with the country's postcode shape; what
 * shares its segment is the locality (`75008 Paris`, `London SW1A 2AA`), or the state where the country writes one
 * (`Springfield, IL 62701`); the first segment is line 1 and anything between is line 2. A trailing country name is
 * dropped.
 */
export function readOneLine(text: string, country: string): Omit<NormalizedAddress, "country"> {
  const segments = text
    .split(/[\n;,]+/)
    .map(clean)
    .filter((s): s is string => s !== null);
  const countryWords = [...(COUNTRY_WORDS[country] ?? [country])];
  if (segments.length > 1 && countryWords.includes(fold(segments.at(-1)!))) segments.pop();
  let at = -1;
  let postcode: string | null = null;
  let rest: string | null = null;
  for (let i = segments.length - 1; i >= 0 && at === -1; i--) {
    const found = findPostcode(country, segments[i]!);
    if (!found) continue;
    at = i;
    postcode = found.postcode;
    rest = clean(`${segments[i]!.slice(0, found.start)} ${segments[i]!.slice(found.end)}`);
  }
  const before = at === -1 ? segments : segments.slice(0, at);
  const place =
    at === -1
      ? { locality: before.length > 1 ? before.at(-1)! : null, region: null, used: before.length > 1 ? 1 : 0 }
      : placeParts(rest, before, country);
  const lines = before.slice(0, before.length - place.used);
  return {
    line1: lines[0] ?? null,
    line2: clean(lines.slice(1).join(", ")),
    locality: place.locality,
    region: place.region,
    postcode,
  };
}

/** The input's parts, cleaned; a one-line address is read first. */
export function readInput(input: AddressInput): NormalizedAddress {
  const country = countryCode(input.country);
  if (isOneLine(input)) return { ...readOneLine(input.address, country), country };
  return {
    line1: clean(input.line1),
    line2: clean(input.line2),
    locality: clean(input.locality),
    region: clean(input.region),
    postcode: clean(input.postcode),
    country,
  };
}
