import type { UsageCounter } from "../../../durable-objects/account-object";
import type { LatestFeedback } from "../lists/feedback-shape";

/**
 * The values a product's functions and the walk pass each other: the context a lookup runs in, the walk's options, a
 * price and a fresh answer. Every role of a product (roles.ts) may name them.
 */

/** A product's name: a key of the registry (src/products/registry.ts), the only place names are listed. */
export type ProductName = string;

/**
 * Hands `work` to an HTTP request's `waitUntil`, started once its answer is decided. `ifFailed` replaces it when the
 * request (or its tool call) ends in an error instead: a settlement that would charge for an answer never given
 * releases its hold then, and a refund gives back what was settled before the answer (src/http/trace-answer.ts).
 * `work` null: only `ifFailed`, if it fails.
 */
export type Defer = (work: (() => Promise<unknown>) | null, ifFailed?: () => Promise<unknown>) => void;

/** What a product's functions may use: bindings, the clock, and whose account the answer is for (null: nobody's). */
export interface ProductContext {
  env: Env;
  now: number;
  accountId: string | null;
  /**
   * Hands over work that may finish after the answer (an HTTP request's `waitUntil`), such as sharing what a lookup
   * learnt; absent (queued work), the product awaits it.
   */
  defer?: Defer;
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
