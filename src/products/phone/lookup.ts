import { database } from "../../db/client";
import { isExhaustive, isSample } from "../../db/coverage";
import { installedSource } from "../../engines/sources";
import type { ProductContext, WalkOptions } from "../../engines/product";
import { UNASKED } from "../../platform/partners/types";
import { checkNumbers } from "../../platform/phone-network";
import { phoneAnswer, withNetwork, type PrefixFacts } from "./answer";
import { TABLE_DATASETS, type TableDataset } from "./datasets";
import { readItem, type PhoneItem, type PlanReading } from "./numbering";
import type { PhoneResult } from "./result";
import { rowsForPrefixes, type Installed, type PrefixRow } from "./store";

/**
 * The longest prefix the carrier, geocode and timezone tables hold (datasets/phone/build.mjs stops at a longer one).
 */
export const MAX_PREFIX_DIGITS = 10;

/** `digits` and every shorter prefix of it down to the empty one (longest first), capped at MAX_PREFIX_DIGITS. */
export function prefixesOf(digits: string): string[] {
  const longest = Math.min(digits.length, MAX_PREFIX_DIGITS);
  return Array.from({ length: longest + 1 }, (_, n) => digits.slice(0, longest - n));
}

/** Rows by dataset, then calling code and prefix. */
export type Index = Map<TableDataset, Map<string, string>>;

export function indexRows(rows: PrefixRow[]): Index {
  const index: Index = new Map(TABLE_DATASETS.map((name) => [name, new Map<string, string>()]));
  for (const row of rows) index.get(row.dataset)!.set(`${row.callingCode}:${row.prefix}`, row.value);
  return index;
}

/** The value of the longest prefix of `national` the dataset holds. */
export function longest(index: Index, dataset: TableDataset, code: string, national: string): string | null {
  const table = index.get(dataset)!;
  for (const prefix of prefixesOf(national)) {
    const value = table.get(`${code}:${prefix}`);
    if (value !== undefined) return value;
  }
  return null;
}

/**
 * libphonenumber's `isNumberGeographical`: fixed lines everywhere, mobiles only where mobile prefixes follow the map
 * (Mexico, Argentina, Brazil, Indonesia, China: its `GEO_MOBILE_COUNTRIES`).
 */
const GEO_MOBILE_CODES = new Set(["52", "54", "55", "62", "86"]);
const isGeographical = (reading: PlanReading) =>
  reading.line_type === "fixed_line" ||
  reading.line_type === "fixed_line_or_mobile" ||
  (reading.line_type === "mobile" && GEO_MOBILE_CODES.has(reading.calling_code!));

/**
 * The zones of the longest prefix the table holds for the number. The calling code's own entry lists every zone of the
 * country (42 for +1): a geographical number's fallback, as libphonenumber has it, but no place for a toll-free or
 * other non-geographical number without a prefix of its own, unless the country has one zone.
 */
export function zonesOf(index: Index, reading: PlanReading): string[] | null {
  const table = index.get("phone-timezones")!;
  for (const prefix of prefixesOf(reading.national_number!)) {
    const zones = table.get(`${reading.calling_code}:${prefix}`)?.split("&");
    if (zones === undefined) continue;
    return prefix === "" && zones.length > 1 && !isGeographical(reading) ? null : zones;
  }
  return null;
}

/**
 * Carrier, place, zones and the disposable list for one valid number; nulls (and `missing_datasets`) for tables not
 * installed.
 */
function factsFor(reading: PlanReading, index: Index, installed: Map<TableDataset, Installed>): PrefixFacts {
  const code = reading.calling_code!;
  const national = reading.national_number!;
  const has = (name: TableDataset) => installed.has(name);
  const lastSeen = has("phone-disposable") ? (index.get("phone-disposable")!.get(`${code}:${national}`) ?? null) : null;
  const zones = has("phone-timezones") ? zonesOf(index, reading) : null;
  const carrier = has("phone-carriers") ? longest(index, "phone-carriers", code, national) : null;
  const location = has("phone-geocodes") ? longest(index, "phone-geocodes", code, national) : null;
  const sample = (name: TableDataset) => isSample(installed.get(name)?.coverage);
  return {
    carrier,
    location,
    timezones: zones,
    // Off a sample or part of the list, a number is not known to be clean: only the whole list says no.
    disposable: !has("phone-disposable")
      ? null
      : lastSeen !== null
        ? true
        : isExhaustive(installed.get("phone-disposable")!.coverage)
          ? false
          : null,
    disposable_last_seen: lastSeen,
    missing_datasets: TABLE_DATASETS.filter((name) => !has(name)),
    sources: TABLE_DATASETS.flatMap((name) => (has(name) ? [installedSource(name, installed.get(name)!)] : [])),
    fromSample:
      (carrier !== null && sample("phone-carriers")) ||
      (location !== null && sample("phone-geocodes")) ||
      (zones !== null && sample("phone-timezones")) ||
      (lastSeen !== null && sample("phone-disposable")),
  };
}

/**
 * Answers numbers from the bundled numbering plan and the prefix tables in D1: one D1 batch for the whole list, with
 * every prefix of every valid number (and the whole national number, which the disposable list matches exactly).
 */
export async function lookupNumbers(env: Env, items: PhoneItem[]): Promise<PhoneResult[]> {
  const readings = items.map(readItem);
  const wanted = new Map<string, Set<string>>();
  for (const r of readings) {
    if (!r.valid) continue;
    const set = wanted.get(r.calling_code!) ?? new Set<string>();
    for (const prefix of prefixesOf(r.national_number!)) set.add(prefix);
    set.add(r.national_number!);
    wanted.set(r.calling_code!, set);
  }
  if (!wanted.size) return readings.map((r) => phoneAnswer(r));
  const { rows, installed } = await rowsForPrefixes(database(env), wanted);
  const index = indexRows(rows);
  return readings.map((r) => (r.valid ? phoneAnswer(r, factsFor(r, index, installed)) : phoneAnswer(r)));
}

/** Whether the lookup asks the live network check (`network: true`, in the walk's `extra`). */
export const wantsNetwork = (options: WalkOptions) => options.extra.network === true;

/** The lookup, then with `network: true` the partner's check of each distinct valid number (docs/phone.md). */
export async function lookupPhones(
  ctx: ProductContext,
  items: PhoneItem[],
  options: WalkOptions,
): Promise<PhoneResult[]> {
  const results = await lookupNumbers(ctx.env, items);
  if (!wantsNetwork(options)) return results;
  const numbers = results.flatMap((r) => (r.valid && r.e164 ? [r.e164] : []));
  if (!numbers.length) return results;
  const checks = await checkNumbers(ctx.env, ctx.accountId, numbers);
  return results.map((r) => (r.valid && r.e164 ? withNetwork(r, checks.get(r.e164) ?? UNASKED) : r));
}
