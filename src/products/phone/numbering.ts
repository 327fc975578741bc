import type { z } from "zod";
import {
  isSupportedCountry,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
  type CountryCode,
  type PhoneNumberType,
} from "libphonenumber-js/max";
import type { LineType, ValidationError } from "./result";
import type { phoneItem } from "./schemas";

/**
 * One number as requests carry it: a string, or `{phone, country}` where `country` is the region of a number written
 * without `+`.
 */
export type PhoneItem = z.output<typeof phoneItem>;

/** What the numbering plan alone says about a number (libphonenumber-js, max metadata). */
export interface PlanReading {
  /** The input cleaned of wrappers. */
  phone: string;
  valid: boolean;
  possible: boolean;
  validation_error: ValidationError | null;
  /** The number in E.164 whenever it parses, valid or not (test numbers and keys use it). */
  parsed: string | null;
  /** Only when valid. */
  e164: string | null;
  national_format: string | null;
  international_format: string | null;
  country: string | null;
  calling_code: string | null;
  national_number: string | null;
  line_type: LineType;
}

const LINE_TYPES: Record<PhoneNumberType, LineType> = {
  MOBILE: "mobile",
  FIXED_LINE: "fixed_line",
  FIXED_LINE_OR_MOBILE: "fixed_line_or_mobile",
  VOIP: "voip",
  TOLL_FREE: "toll_free",
  PREMIUM_RATE: "premium_rate",
  SHARED_COST: "shared_cost",
  PERSONAL_NUMBER: "personal_number",
  PAGER: "pager",
  UAN: "uan",
  VOICEMAIL: "voicemail",
};

/**
 * Strips what people wrap numbers in: `tel:`, spaces (any kind), dots, dashes, brackets, slashes, invisible characters.
 */
export function cleanPhone(input: string): string {
  return input
    .trim()
    .replace(/^tel:/i, "")
    .replace(/[\s.\-()[\]/\u00ad\u200b-\u200f\u2060\ufeff]+/g, "");
}

export const itemPhone = (item: PhoneItem) => (typeof item === "string" ? item : item.phone);
export const itemCountry = (item: PhoneItem) =>
  typeof item === "string" ? null : (item.country?.trim().toUpperCase() ?? null) || null;

function read(phone: string, country: string | null): PlanReading {
  const region = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = /\d/.test(phone) ? parsePhoneNumberFromString(phone, region) : undefined;
  const lengthError = validatePhoneNumberLength(phone, region) ?? null;
  const valid = parsed?.isValid() ?? false;
  const validation_error = !parsed ? (lengthError ?? "NOT_A_NUMBER") : valid ? null : lengthError;
  return {
    phone,
    valid,
    possible: parsed?.isPossible() ?? false,
    validation_error,
    parsed: parsed?.number ?? null,
    e164: valid ? parsed!.number : null,
    national_format: valid ? parsed!.formatNational() : null,
    international_format: valid ? parsed!.formatInternational() : null,
    country: valid ? (parsed!.country ?? null) : null,
    calling_code: valid ? parsed!.countryCallingCode : null,
    national_number: valid ? parsed!.nationalNumber : null,
    line_type: valid ? (LINE_TYPES[parsed!.getType() as PhoneNumberType] ?? "unknown") : "unknown",
  };
}

// Single lookups, batches and bulk chunks read each number several times (key, local answer, lookup): remember a few.
const recent = new Map<string, PlanReading>();
const RECENT_LIMIT = 4_096;

/** The numbering plan's reading of one item (cached per isolate: readings never change while the bundle runs). */
export function readItem(item: PhoneItem): PlanReading {
  const phone = cleanPhone(itemPhone(item));
  const country = itemCountry(item);
  const key = `${country ?? ""}|${phone}`;
  let reading = recent.get(key);
  if (!reading) {
    reading = read(phone, country);
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value!);
    recent.set(key, reading);
  }
  return reading;
}

/**
 * The repeat, suppression and dedupe key: E.164 for a valid number (any spelling), else the cleaned spelling; the same
 * as history's `e164` column, so `?phone=` finds an answer however it is written.
 */
export function phoneKey(item: PhoneItem): string {
  const reading = readItem(item);
  return reading.e164 ?? reading.phone;
}
