import type { z } from "zod";
import type { UsageCounter } from "../../durable-objects/account-credits";
import type { RefreshableDataset } from "./datasets/refreshable";
import type { LatestFeedback } from "./lists/feedback";
import type { FeedbackShape } from "./lists/feedback-shape";
import type { LookupShape } from "./lookup-shape";
import type { PolicyShape } from "./policy/policy";

/** A product's name: a key of the registry (src/products/registry.ts), the only place names are listed. */
export type ProductName = string;

export type { Source } from "./sources";

/** What a product's functions may use: bindings, the clock, and whose account the answer is for (null: nobody's). */
export interface ProductContext {
  env: Env;
  now: number;
  accountId: string | null;
  /**
   * Hands over work that may finish after the answer (an HTTP request's `waitUntil`), such as sharing what a lookup
   * learnt; absent (queued work), the product awaits it.
   */
  defer?: (work: () => Promise<unknown>) => void;
  /**
   * The account's latest feedback on `keys`, read by the walk's first call (a product with `readsFeedback`), so the
   * product need not ask the account's object again for a key among them.
   */
  feedback?: { keys: Set<string>; latest: Map<string, LatestFeedback> };
}

/** Options every walk understands; products read their own extra options (email's `timeout`) from `extra`. */
export interface WalkOptions {
  /** Discard the 7-day repeat answer and answer fresh (billed as fresh when answered). */
  refresh: boolean;
  /** Answer fresh when the repeat answer is older than this many seconds. */
  maxAgeSeconds: number | null;
  /**
   * Batches, bulk rows and monitor runs answer suppressed values from the stored answer; a single lookup never does.
   */
  honorSuppressions: boolean;
  extra: Record<string, unknown>;
}

/**
 * The price of one fresh answer, in the product's units (a credit is `unitsPerCredit` units). `fairUse` answers are
 * free while the account's fair-use allowance lasts and cost `units` past it; `counter` names the rolling usage counter
 * the answer adds to (email's fair-use rule counts billed answers and checked undeliverable verdicts).
 */
export interface Price {
  units: number;
  fairUse?: boolean;
  counter?: UsageCounter;
}

/** A fresh answer from the product, with what the walk needs beyond the result. */
export interface Looked<Out> {
  result: Out;
  /** The answer replaced an earlier one the product held (email: a stale shared mailbox answer). */
  refreshed?: boolean;
}

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

/**
 * What the paid walk needs of a product (src/engines/walk/): how its values are keyed, answered, priced, remembered,
 * suppressed and stamped with a policy. Everything a product knows about its values is a plain function here; the walk
 * does the rest, the same way for every product and every path (single, batch, browser, bulk row, monitor run).
 */
export interface WalkProduct<In = unknown, Out = unknown> {
  /** The product's key in the registry (src/products/registry.ts), its path segment and its event names' stem. */
  name: ProductName;
  /** The key scope that reaches this product's lookups and routes (its registry name). */
  scope: string;
  /** One value as a request carries it: validates batch items, bulk rows and monitor entries. */
  input: z.ZodType<In>;
  /** Credit units: 1 for every product but IP, where five placing lookups cost one credit. */
  unitsPerCredit: number;
  /**
   * `remote`: answers need the network (email's DNS and mailbox handshake), so credits are reserved first and the list
   * is looked up in waves no larger than the reservation. `local`: answers come from datasets, so the whole list is
   * looked up first and exactly its price is reserved.
   */
  cost: "remote" | "local" | ((options: WalkOptions) => "remote" | "local");
  /**
   * Units a remote wave holds per value before looking it up (default 1): the most one answer can cost with these
   * options, so a partner call is never made that the hold does not cover (phone with `network`: 2).
   */
  holdUnits?(options: WalkOptions): number;
  /** The repeat, suppression and dedupe key. Malformed values get a key too, so duplicates still dedupe. */
  normalize(input: In): string;
  /**
   * For a product whose `normalize` changed after rows were stored (address): the key function's version, and the key
   * of the value a stored answer was given for. Repeat markers and suppressions of an older version are re-keyed from
   * their stored answer when the account's rows are next read (src/engines/rekey.ts).
   */
  keys?: { version: number; of(stored: Out): string };
  /** Answers needing no dataset and no credit (test values, malformed input); never remembered or suppressed. */
  local?(input: In): Promise<{ result: Out; test: boolean } | null>;
  /** Fresh answers for these values, in order. */
  lookup(ctx: ProductContext, inputs: In[], options: WalkOptions): Promise<Looked<Out>[]>;
  price(result: Out): Price;
  /** Whether a fresh answer starts a 7-day repeat window (email: not while unverified; entity: when found). */
  repeatable(result: Out): boolean;
  /**
   * Answers report the account's latest feedback on some values (IP; consistency's IP signal): the walk's first call
   * reads the feedback `product` recorded within `windowMs` on the keys `keysOf` names (default: the values' own keys),
   * so looking the values up asks the account's object nothing more.
   */
  readsFeedback?: { product: ProductName; windowMs: number; keysOf?(input: In): string[] };
  /**
   * `stored`: a repeat answers with the stored answer (email). `fresh`: a repeat is looked up again (a cheap local
   * read) and only its price is waived, so a monitor sees today's register. A function decides per repeat, from the
   * stored answer and the value as now asked (email: a stored mailbox answer serves only spellings of the same
   * mailbox). `renew`: the stored answer does not answer these options (phone: unchecked, and `network` is asked), so
   * the value is answered fresh and billed, as with `refresh`; `env` tells what is configured (address: which countries
   * a delivery-point partner covers).
   */
  repeats:
    | "stored"
    | "fresh"
    | ((stored: Out, input: In, options: WalkOptions, env: Env) => "stored" | "fresh" | "renew");
  /** Products with a suppression list: which fresh answers join it, and the answer a manual entry gives. */
  suppressions?: {
    suppresses(result: Out): { reason: string } | null;
    /** The stored answer of a value suppressed by hand, or null when the value is malformed. */
    manual(input: In): { key: string; result: Out } | null;
    /** Field names of the list routes: the body's list (`emails`) and one entry's value (`email`). */
    listField: string;
    valueField: string;
  };
  /** The account's history rows the walk writes for fresh answers (and `GET /{product}/history`). */
  history?: HistoryShape<Out>;
  /** The answer as this input spelled its value, when one answer serves several spellings of a key (email: `email`). */
  asAsked?(result: Out, input: In): Out;
  /** Sending policy: `policy` on every answer, stamped by the walk (and `GET, PUT, DELETE /{product}/policy`). */
  policy?: PolicyShape<Out>;
  /** Sandbox samples: the values the published sandbox key may look up. */
  isSample(input: In): boolean;
  /**
   * The sandbox samples and test values listed, as a lookup takes them (each passes `isSample`): the examples the
   * dashboard shows. Products whose samples are composed of others' (consistency) or that have none (entity) omit it.
   */
  samples?: readonly In[];
  /** Dataset names this product's answers may cite in `sources`. */
  datasets: readonly string[];
}

/**
 * What the registry serves beyond the walk: the surfaces' lookups and the engines' routes and jobs of a product. A
 * member is declared only by the products that have the feature; those used by one product only are marked.
 */
export interface ProductServices<In = unknown, Out = unknown> {
  /** Its lookups as data (single, batch, browser, its own reads): every surface mounts or calls them. */
  lookups?: LookupShape;
  bulk?: BulkShape<Out>;
  monitor?: MonitorShape<In, Out>;
  /** Delivery feedback: `POST /{product}/feedback`, its summary and the senders' inbound webhooks. */
  feedback?: FeedbackShape<In, Out>;
  /** Datasets the scheduled refresh keeps current from their publishers (src/engines/datasets/refreshable.ts). */
  refreshable?: readonly RefreshableDataset[];
  /** Email only: sample bodies of its own events for test deliveries (`email.settled`), built like the real ones. */
  sampleEvents?: Partial<Record<string, () => string>>;
  /** Email only: queue messages the product handles itself, by `type` (`recheck`, its settling re-checks). */
  messages?: Record<string, (env: Env, message: { type: string }) => Promise<void>>;
  /**
   * Email only: queue messages whose every copy in one delivered batch is handled at once, by `type` (one write for
   * the lot: `mailbox_answers`, its shared handshake answers); the handler must be idempotent.
   */
  batchedMessages?: Record<string, (env: Env, messages: readonly { type: string }[]) => Promise<void>>;
  /**
   * A product that compares other products' answers (consistency): the input fields it accepts, each a signal answered
   * by the registered product of that name.
   */
  signals?: readonly string[];
  /** Email only: further product objects served under this one's name (its domain lookups, for domain monitors). */
  companions?: readonly Product[];
}

/** One product as the registry holds it: what the walk needs, and what the registry serves. */
export interface Product<In = unknown, Out = unknown> extends WalkProduct<In, Out>, ProductServices<In, Out> {}

/**
 * Widens a concrete product to the registry's element type; the engines only pass a product's own values back to it.
 */
export const asProduct = <In, Out>(product: Product<In, Out>) => product as unknown as Product;
