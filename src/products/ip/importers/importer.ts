import { cidrBounds, parseCidr, rangeKey } from "../../../platform/ip-address";
import type { Coverage } from "../../../db/coverage";
import type { FullFloor, RecordFormat, RowReader, SourceFile } from "../../../engines/datasets/refreshable";
import type { IpDatasetName, RangeRow } from "../datasets";

/**
 * One publisher's file as a dataset, in the shape the scheduled refresh declares its datasets
 * (src/engines/datasets/refreshable.ts: sources with a URL var and the publisher's default, record format, cadence,
 * sanity bounds, coverage): `parse` is the pure reading of the publisher's text, `reader` the refresh's row reader of
 * it (src/products/ip/refresh.ts registers every importer). Node (scripts/import-ip.mjs) and the Worker run the same
 * code.
 */
export interface IpImporter {
  dataset: IpDatasetName;
  /** Who publishes the file, and the company `hosting_provider` names for a hosting list. */
  publisher: string;
  /** The files fetched, in order (a Worker var overrides each URL); their texts are joined with a line break. */
  sources: SourceFile[];
  /**
   * How the refresh cuts the staged file: `whole` for the range lists (a few MB at most; JSON documents cannot be cut
   * into lines), `lines` for the Tor list (one relay line at a time).
   */
  format: RecordFormat;
  /** The refresh's row reader of `format` records; default `wholeReader(this)` (a `whole` file parsed in one piece). */
  reader?: RowReader<RangeRow | string>;
  /** The publisher's format, in words (docs/ip.md lists them). */
  formatName: string;
  cadence: { everyMinutes: number; staleAfterMinutes: number };
  /** A refreshed file with fewer rows than `minRecords`, or outside these ratios of the active one, is refused. */
  sanity: { minRecords: number; minRatio: number; maxRatio: number };
  license: string;
  /** What the real file covers; the shipped samples are `sample`. */
  coverage: Coverage;
  /** The rows a complete file has at least: a refreshed `full` list below it is recorded as `partial`. */
  fullFloor: FullFloor | null;
  /** The shipped sample in this format (datasets/ip/), for development and tests. */
  sample: string;
  parse(text: string): ParsedDataset;
}

export const source = (urlVar: string, defaultUrl: string): SourceFile => ({ urlVar, defaultUrl, compression: "none" });

const MINUTES = { hour: 60, day: 24 * 60, week: 7 * 24 * 60 };
/** The publisher's cycle, and how late an answer may be before `/status/data` calls it stale (three cycles). */
export const every = (unit: keyof typeof MINUTES) => ({
  everyMinutes: MINUTES[unit],
  staleAfterMinutes: 3 * MINUTES[unit],
});
export const WHOLE = { kind: "whole", maxBytes: 32 * 1024 * 1024 } as const;
/** Published range lists change a little from one day to the next: a file half the size is a broken one. */
export const LIST_SANITY = { minRecords: 1, minRatio: 0.5, maxRatio: 2 };

/**
 * The refresh's row reader of a `whole` file (src/engines/datasets/refreshable.ts): the engine calls `begin` and `end`
 * once per source file and hands `read` that file's text as one record, so each file is parsed on its own and nothing
 * is carried in the state (the engine stores it with the cursor in D1). A list of several files (Cloudflare's IPv4 and
 * IPv6 editions) is merged within each file; the families never overlap.
 */
export const wholeReader = (importer: Pick<IpImporter, "parse">): RowReader<RangeRow | string> => ({
  begin: () => ({}),
  read(records) {
    const rows: (RangeRow | string)[] = [];
    let skipped = 0;
    for (const [text = ""] of records) {
      const parsed = importer.parse(text);
      rows.push(...parsed.rows);
      skipped += parsed.skipped;
    }
    return { rows, skipped };
  },
  end: () => [],
});

/** Rows ready for /admin/v1/ip-datasets (range rows, or Tor exit keys), and the version the file states, if any. */
export interface ParsedDataset {
  rows: RangeRow[] | string[];
  /** `YYYY-MM-DD` or `YYYY-MM-DD-tag` from the file itself; null when it states none (the fetch day is used then). */
  version: string | null;
  /** Entries that were not readable (counted, not fatal: a publisher may add a kind we do not know). */
  skipped: number;
}

/**
 * CIDR blocks of one list as non-overlapping rows `[start, end, label]`: blocks are sorted and overlapping or adjacent
 * ones merged, since one list says one thing (this address is the provider's) about every block it holds.
 */
export function cidrRows(blocks: string[], label: string | null): { rows: RangeRow[]; skipped: number } {
  const ranges: [bigint, bigint][] = [];
  let skipped = 0;
  for (const text of blocks) {
    const cidr = parseCidr(text);
    if (!cidr) {
      skipped += 1;
      continue;
    }
    const [first, last] = cidrBounds(cidr);
    ranges.push([BigInt(`0x${rangeKey(first)}`), BigInt(`0x${rangeKey(last)}`)]);
  }
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: [bigint, bigint][] = [];
  for (const [start, end] of ranges) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1] + 1n) last[1] = end > last[1] ? end : last[1];
    else merged.push([start, end]);
  }
  const key = (value: bigint) => value.toString(16).padStart(32, "0");
  return { rows: merged.map(([start, end]) => [key(start), key(end), label]), skipped };
}

/**
 * The lines of a plain list: trimmed, without blanks and `#` / `;` comments (X4BNet, Cloudflare, the bulk Tor list).
 */
export const listLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/[#;].*$/, "").trim())
    .filter((line) => line !== "");

/** `2026-11-20...` (any ISO-like timestamp) -> `2026-11-20`; null when the text does not start with a date. */
export const dayOf = (value: unknown) =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;

/** Parses a JSON file, naming the publisher when it is not JSON (the refresh reports the error as is). */
export function readJson(text: string, publisher: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${publisher}: the file is not JSON`);
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
export const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
