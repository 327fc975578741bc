/**
 * The scheduled refresh's contract: what a dataset declares so the engine (src/engines/datasets/refresh.ts) can fetch
 * its publisher's file on a cadence, stage it in R2, import it into a new generation in bounded steps and switch
 * answers to it in one step once it passed its sanity bounds. Products declare their refreshable datasets
 * (`Product.refreshable`); the engine never knows a product.
 *
 * One refresh run of a dataset goes: fetch (every source file, decompressed, into R2 as plain text) -> import (one
 * queue message per step: a byte range of the staged text is cut into whole records, read into rows and written into
 * the new generation together with the run's cursor, so a retried step rewrites the same rows and a crash resumes at
 * the cursor)
 * -> check (row count within bounds of the generation answers read) -> activate (one D1 batch) -> sweep old rows.
 */

import type { Activation, Coverage } from "../../db/coverage";
import type { TableFamily } from "../../db/table-family";

/** What a dataset covers (src/db/coverage.ts), recorded with its `datasets` row when a refresh activates it. */
export type { Coverage };

export type Compression = "none" | "gzip" | "zip";

/**
 * One file a dataset is built from. Several files (IPv4 and IPv6 editions) are imported in order into one generation.
 */
export interface SourceFile {
  /** The Worker var that overrides the URL (`REFRESH_URL_GLEIF_LEI`); empty or unset: `defaultUrl`. */
  urlVar: string;
  /** The publisher's production URL. */
  defaultUrl: string;
  compression: Compression;
  /** A zip archive's member to read (the first member whose name matches; default: the first member). */
  zipEntry?: RegExp;
  /**
   * Read every member matching `zipEntry`, in the archive's order, as one text (each ending with a line feed): a
   * publisher that splits one headerless table over many files (OS Open Names: one CSV per 100 km grid square).
   */
  zipAll?: boolean;
}

/**
 * How the staged text is cut into records before `RowReader.read` sees them:
 * - `lines`: one record per line, as `[line]` (blank lines dropped);
 * - `csv`: RFC 4180 records (quoted fields may hold line breaks), `delimiter` default `,`;
 * - `whole`: the whole file as one record `[text]` (JSON documents: cloud providers' range lists), at most `maxBytes`;
 * - `binary`: a file of no records (a MaxMind DB's search tree), at most `maxBytes`, read whole into every step and
 *   walked by `RowReader.walk` from the position its state saved.
 */
export type RecordFormat =
  | { kind: "lines" }
  | { kind: "csv"; delimiter?: string }
  | { kind: "whole"; maxBytes: number }
  | { kind: "binary"; maxBytes: number };

/**
 * A reader's state between steps: JSON-serialisable (it is stored with the cursor), so an import resumes after a crash
 * with exactly the state it had (a CSV header's column indexes, an IP range flattener's open ranges).
 */
export type ReaderState = Record<string, unknown>;

/** Turns records into rows. Pure and deterministic: a retried step must produce the same rows from the same state. */
export interface RowReader<Row> {
  /**
   * State at the start of source file `file` (index into `sources`) named `fileName` (the URL's last path segment or
   * zip member).
   */
  begin(file: number, fileName: string): ReaderState;
  /** Rows of these records; mutates `state`. `skipped` counts records that are not usable rows (never an error). */
  read(records: string[][], state: ReaderState): { rows: Row[]; skipped: number };
  /** Rows still held when the file ends (an IP range flattener's open ranges). */
  end(state: ReaderState): Row[];
  /** `binary` files: up to `maxRows` rows from where `state` stands (mutated); `done` once the file is walked. */
  walk?(bytes: Uint8Array, state: ReaderState, maxRows: number): { rows: Row[]; skipped: number; done: boolean };
}

/**
 * Where a dataset's rows live, by generation. The engine reserves a generation, writes rows into it, and activates it;
 * answers only ever read the active generation, so a half-imported one is never seen.
 */
export interface GenerationTable<Row> {
  /** The generation answers read now and its record count (the reference for the sanity bounds); null: none yet. */
  current(db: D1Database): Promise<{ generation: number; records: number; version: string } | null>;
  /** Reserves a new generation beside the active one (any earlier unfinished one is left to `sweep`). */
  begin(db: D1Database): Promise<number>;
  /**
   * Statements writing `rows` into `generation`, idempotently (a retried step rewrites the same rows); `db` is the
   * database of the dataset's `family`.
   */
  insert(db: D1Database, generation: number, rows: Row[]): D1PreparedStatement[];
  /**
   * Statements making `generation` the one answers read, listed in `datasets` at `version` with `coverage` (the
   * dataset's declared coverage: a refresh loads the publisher's whole file), run in one batch with the engine's state.
   */
  activate(db: D1Database, activation: Activation): D1PreparedStatement[];
  /**
   * Deletes rows of generations neither active nor being imported until done or `budgetMs` passed; `rows` is the
   * database of the dataset's `family` (`db`, which holds the generations, unless the rows live apart).
   */
  sweep(db: D1Database, budgetMs: number, rows: D1Database): Promise<{ deleted: number; done: boolean }>;
}

/**
 * A refresh passes when it has at least `minRecords` rows and, when a generation is active, its count is within these
 * ratios of it.
 */
export interface SanityBounds {
  minRecords: number;
  /** e.g. 0.9: a new file with under 90% of the rows of the active one is refused (a truncated download). */
  minRatio: number;
  /** e.g. 1.5: more than 150% is refused (a wrong file behind the URL). */
  maxRatio: number;
}

/**
 * The fewest rows a publisher's complete file has, and where that figure comes from (the publisher's own statistics or
 * a measured file). A dataset declaring `full` coverage is recorded as `full` only when a refreshed generation has at
 * least this many rows: the sanity bounds compare a file with the previous one, and a first generation has none, so
 * without a floor a test file or a truncated download would be installed as the whole register.
 */
export interface FullFloor {
  records: number;
  /** Said in the docs and in the refresh status when a file falls short: "GLEIF: about 2.9 M LEIs issued (2025)". */
  basis: string;
}

export interface Cadence {
  /**
   * A refresh is started when the last attempt is this old (the publisher's cycle: Tor exits 60, cloud ranges 1,440).
   */
  everyMinutes: number;
  /** `/status/data` flags the dataset stale when its last success is older than this. */
  staleAfterMinutes: number;
}

export interface RefreshableDataset<Row = unknown> {
  /** The `datasets` name answers cite (`gleif-lei`, `ip-tor-exits`). */
  name: string;
  sources: readonly SourceFile[];
  format: RecordFormat;
  reader: RowReader<Row>;
  table: GenerationTable<Row>;
  cadence: Cadence;
  sanity: SanityBounds;
  /** What the publisher's whole file covers; recorded as it is only when `fullFloor` is met (`earnedCoverage`). */
  coverage: Coverage;
  /** Null for a dataset whose declared coverage is never `full` (a declared `full` without a floor is not earned). */
  fullFloor: FullFloor | null;
  /**
   * The version answers cite, from the first file's name (the redirect's target or zip member, which carry the
   * publication date) or its Last-Modified; default: the file name's date, else Last-Modified's, else today (UTC).
   */
  version?(file: { fileName: string; lastModified: string | null; now: number }): string | null;
  /**
   * A delta of another dataset (GLEIF's delta files of `gleif-lei`): the schedule starts it only once that dataset has
   * succeeded and while it is not being refreshed, so a delta never races the full file it applies to.
   */
  appliesTo?: string;
  /** Rows written per step (one D1 statement set, one cursor update). Default 2,000. */
  rowsPerStep?: number;
  /**
   * The database its rows live in (src/db/reference.ts); default `main` (`DB`). The bookkeeping (`datasets`, the
   * generations, the run's state) is always in `DB`: rows in another database are written before the cursor that
   * counts them, and the switch to their generation comes after the last of them.
   */
  family?: TableFamily;
}

/** The queue message that drives a run: one step of `name`'s run `run` (a stale or duplicate message is dropped). */
export interface RefreshMessage {
  type: "dataset_refresh";
  name: string;
  run: string;
}

/** The database family a dataset's rows live in: `main` (`DB`, beside their bookkeeping) unless it names another. */
export const familyOf = (dataset: RefreshableDataset): TableFamily => dataset.family ?? "main";
