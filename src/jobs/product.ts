import type { EventName } from "../routes/webhooks";

/** What one product contributes to the bulk engine: how to key duplicates, process rows, count them and write CSV. */
export interface BulkProduct<Options = Record<string, unknown>> {
  name: string;
  event: EventName;
  /** Row counters on the job object, e.g. deliverable/risky/undeliverable. */
  countKeys: readonly string[];
  /** Inputs with the same key are looked up once (`duplicate_count`). */
  dedupeKey(input: string): string;
  csvHeader: readonly string[];
  /** The row for a later copy of an input: its own spelling, and nothing charged again. */
  duplicateRow(row: BulkChunkResult["rows"][number], input: string): BulkChunkResult["rows"][number];
  /** Answers `inputs` in order for the payer, stopping where credits run out. */
  process(ctx: BulkContext, inputs: string[], options: Options): Promise<BulkChunkResult>;
}

export interface BulkContext {
  env: Env;
  accountId: string;
  keyId: string;
  dailyCreditCap: number | null;
  /** Unique per (run, chunk, starting row): the ledger's request id and the credits' idempotency key. */
  operationId: string;
}

export interface BulkChunkResult {
  /** One row per processed input, in order: values for `csvHeader` minus the leading `index` column. */
  rows: (string | number | boolean | null)[][];
  /** The counter each processed row adds to (one of `countKeys`). */
  countKey: string[];
  creditsUsed: number;
  stoppedReason: "insufficient_credits" | "key_spend_cap" | null;
}
