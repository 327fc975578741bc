import { createHash } from "node:crypto";

/** A copy of `value` whose object keys are sorted at every depth; array order is kept (it may carry meaning). */
export function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key])]),
    );
  }
  return value;
}

/** Compact JSON with sorted keys: the byte form that is hashed and written. */
export function canonicalJson(value) {
  return JSON.stringify(sortKeys(value));
}

/** Code-unit order, independent of locale, deduplicated. */
export function sortedUnique(values) {
  return [...new Set(values)].sort();
}

export function sha256Hex(text) {
  return createHash("sha256").update(text).digest("hex");
}

/** `YYYY.MM.DD` of an ISO date or timestamp (UTC). */
export function dottedDate(isoDate) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate ?? "");
  if (!match) throw new Error(`Not an ISO date: ${JSON.stringify(isoDate)}`);
  return `${match[1]}.${match[2]}.${match[3]}`;
}

/**
 * `<date>-<first 8 hex of sha256(canonical data)>`. The date is the newest publish date among the snapshot's source
 * packages, or, for a snapshot made only from curated files, the newest curated `date`: it says how fresh the upstream
 * data is. The hash says exactly which data it is, so a curated edit still changes the version.
 */
export function snapshotVersion(sources, data) {
  const published = sources.filter((source) => source.published);
  const dated = published.length ? published.map((source) => source.published) : sources.map((source) => source.date);
  const dates = dated.map(dottedDate).sort();
  if (!dates.length) throw new Error("A snapshot needs at least one dated source");
  return `${dates[dates.length - 1]}-${sha256Hex(canonicalJson(data)).slice(0, 8)}`;
}

export const VERSION_PATTERN = /^\d{4}\.\d{2}\.\d{2}-[0-9a-f]{8}$/;
