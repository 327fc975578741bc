import { getCountryCallingCode, isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import metadata from "libphonenumber-js/metadata.max.json";
import { admitsPrefix } from "./pattern";
import type { LineType } from "./result";

/**
 * A country's numbering plan as libphonenumber-js's max metadata holds it (format version 4: index 3 the possible
 * lengths, 11 the per-type descriptions `[pattern, lengths?]` in this order).
 */
const TYPE_ORDER: LineType[] = [
  "fixed_line",
  "mobile",
  "toll_free",
  "premium_rate",
  "personal_number",
  "voicemail",
  "uan",
  "pager",
  "voip",
  "shared_cost",
];

interface TypeDesc {
  type: LineType;
  pattern: string;
  lengths: number[];
}

export interface CountryPlan {
  country: string;
  callingCode: string;
  /** Every length a number of the country can have. */
  lengths: number[];
  types: TypeDesc[];
}

const plans = new Map<string, CountryPlan | null>();

function readPlan(country: string): CountryPlan | null {
  if (!isSupportedCountry(country)) return null;
  const raw = (metadata.countries as Record<string, unknown[] | undefined>)[country];
  if (!raw) return null;
  const lengths = (raw[3] as number[] | undefined) ?? [];
  const descs = ((raw[11] as unknown[] | undefined) ?? []).map((desc, i) =>
    Array.isArray(desc) && typeof desc[0] === "string"
      ? { type: TYPE_ORDER[i]!, pattern: desc[0], lengths: (desc[1] as number[] | undefined) ?? lengths }
      : null,
  );
  const types = descs.flatMap((d) => {
    if (!d) return [];
    // An empty mobile pattern means "the same numbers as fixed line" (NANP): libphonenumber's FIXED_LINE_OR_MOBILE.
    if (d.pattern === "") return d.type === "mobile" && descs[0] ? [{ ...descs[0], type: d.type }] : [];
    return [d];
  });
  return { country, callingCode: getCountryCallingCode(country as CountryCode), lengths, types };
}

/** The plan of a two-letter country, or null when libphonenumber has none. */
export function planOf(country: string): CountryPlan | null {
  if (!plans.has(country)) plans.set(country, readPlan(country));
  return plans.get(country)!;
}

/**
 * The lengths a valid number starting with `prefix` can have: some type of number (mobile, fixed line, ...) of that
 * length starts so. Empty when none does (the country's general pattern alone is broader: GB's drama ranges).
 */
export const lengthsUnder = (plan: CountryPlan, prefix: string) =>
  [...new Set(plan.types.flatMap((t) => t.lengths.filter((length) => admitsPrefix(t.pattern, prefix, length))))].sort(
    (a, b) => a - b,
  );

/** The kinds of number that can start with `prefix` (of `length` digits, when given). */
export const typesUnder = (plan: CountryPlan, prefix: string, length?: number): LineType[] =>
  plan.types
    .filter((t) => t.lengths.some((l) => (length === undefined || l === length) && admitsPrefix(t.pattern, prefix, l)))
    .map((t) => t.type);

/**
 * What numbers starting with `prefix` are: the one type they can all be, `fixed_line_or_mobile` when only those two
 * share the range (libphonenumber's own rule), else `unknown` (a range holding several kinds).
 */
export function lineTypeUnder(plan: CountryPlan, prefix: string): LineType {
  const kinds = typesUnder(plan, prefix);
  if (kinds.length === 1) return kinds[0]!;
  if (kinds.length === 2 && kinds.includes("fixed_line") && kinds.includes("mobile")) return "fixed_line_or_mobile";
  return "unknown";
}
