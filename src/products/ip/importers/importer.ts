import { cidrBounds, parseCidr, rangeKey } from "../../../platform/ip-address";
import type { Coverage, IpDatasetName, RangeRow } from "../datasets";

/**
 * One publisher's file as a dataset: what the scheduled refresh (and `npm run datasets:import`) needs to fetch it and
 * turn it into rows. `parse` is pure (the publisher's text in, rows out), so it runs the same in Node and in the Worker.
 */
export interface IpImporter {
  dataset: IpDatasetName;
  /** Who publishes the file, and the company `hosting_provider` names for a hosting list. */
  publisher: string;
  /** The URLs fetched, in order; their texts are joined with a line break before `parse`. */
  sources: string[];
  /** The publisher's format, in words (docs/ip.md lists them). */
  format: string;
  /** How often the publisher updates it, and so how often it is worth fetching. */
  cadence: "hourly" | "daily" | "weekly";
  license: string;
  /** What the real file covers; the shipped samples are `sample`. */
  coverage: Coverage;
  /** The shipped sample in this format (datasets/ip/), for development and tests. */
  sample: string;
  parse(text: string): ParsedDataset;
}

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

/** The lines of a plain list: trimmed, without blanks and `#` / `;` comments (X4BNet, Cloudflare, the bulk Tor list). */
export const listLines = (text: string) =>
  text.split(/\r?\n/).map((line) => line.replace(/[#;].*$/, "").trim()).filter((line) => line !== "");

/** `2026-11-20...` (any ISO-like timestamp) -> `2026-11-20`; null when the text does not start with a date. */
export const dayOf = (value: unknown) => (typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null);

/** Parses a JSON file, naming the publisher when it is not JSON (the refresh reports the error as is). */
export function readJson(text: string, publisher: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${publisher}: the file is not JSON`);
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
export const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
