import type { z } from "zod";

/** The data a product declares for the engines that write its answers out: bulk CSV rows, monitor runs, history. */

/** How a value is written in a bulk CSV row and counted on the job. */
export interface BulkShape<Out> {
  /** The body field that carries the list on `POST /{product}/bulk` (`emails` for email). */
  field: string;
  /** Options of the product's own every row shares (email: `timeout`), validated at creation, read back as `extra`. */
  options?: Record<string, z.ZodType>;
  /** Row counters on the job object: each row adds to the one its `verdictColumn` value names. */
  counters: readonly string[];
  /** CSV columns after `index` and `input`; `credits_used` and `suppressed` are added by the engine. */
  columns: readonly string[];
  row(result: Out): (string | number | boolean | null)[];
  /** Columns a later copy of a value fills from its own spelling (email: `email`); `input` is always its own. */
  spell?(input: string): Record<string, string>;
  /** The column whose value is the row's counter and the results `variant` it belongs to (email: `deliverable`). */
  verdictColumn: string;
  /**
   * Rows as the create body may carry them when that differs from `input`, and how each becomes an input with the run's
   * options (address: a one-line row takes the run's `country`); an `error` rejects the row with a 422.
   */
  rows?: {
    schema: z.ZodType;
    resolve(row: unknown, options: Record<string, unknown>): { input: unknown } | { error: string };
  };
  /** Options of the run (from `options`) that the job object shows, as given, null when absent (address: `country`). */
  jobFields?: readonly string[];
  /**
   * For products whose rows add to several counters (phone: `valid` and `mobile`; address: `valid` and `low`): the
   * counters, and so the results variants, a row belongs to, read from its CSV cells by column name. Default: the
   * `verdictColumn` value alone.
   */
  counts?(row: Record<string, string>): string[];
  /** Counters a test webhook body shows. */
  sampleCounts: Record<string, number>;
  /** Rows of the sample run when a row adds to several counters (default: the sum of `sampleCounts`). */
  sampleTotal?: number;
}

/** What a monitor run compares between the baseline and the new answer. */
export interface MonitorShape<In, Out> {
  /** The entry's identity as given, so a PATCH that keeps an entry keeps its baseline. */
  entryKey(input: In): string;
  /** The fields a run keeps as baseline. */
  observe(result: Out): Record<string, unknown>;
  /** The changes between a baseline and a new observation; none means no change. */
  compare(
    baseline: Record<string, unknown>,
    now: Record<string, unknown>,
  ): { field: string; from: unknown; to: unknown }[];
  /** How an entry names itself in a run's `changes` list. */
  label(result: Out): string;
  /**
   * Products whose run body carries `flags` (phone): the change flags an entry raised since its baseline. The body
   * then maps each entry that raised any (by `label`) to them, `{}` when none did.
   */
  flags?(baseline: Record<string, unknown>, now: Record<string, unknown>): string[];
  /** Counts a run's summary adds, each the number of answers that hold (entity: `found`). */
  tally?: Record<string, (result: Out) => boolean>;
  /** The body field that carries the monitored list (`identifiers` for entity), and its size limit. */
  listField: string;
  maxEntries: number;
  /**
   * One documented entry the dashboard's form shows as its example, for a monitor whose product lists no samples
   * (email's domain monitors, entity); otherwise the product's first sample is the example.
   */
  example?: In;
  /** Options of the product's own every run uses (phone: `network`), set on create and PATCH, shown on the monitor. */
  options?: Record<string, z.ZodType>;
  /**
   * For a second kind of monitor under one product (email's domain monitors): the name its rows and its
   * `<family>_monitor.run` event carry, and the path segment after `/{product}/`. Defaults: the product's name and
   * `monitors`.
   */
  family?: string;
  path?: string;
}

/** A row of the account's history for one answer. */
export interface HistoryShape<Out> {
  row(result: Out): { value: string; key: string; verdict: string; reason: string | null };
  /** How a history entry names its columns (email: `email`, `normalized_email`, `deliverable`) and the verdicts. */
  fields: { value: string; key: string; verdict: string };
  verdicts: readonly [string, ...string[]];
}
