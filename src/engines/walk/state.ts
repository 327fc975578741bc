import type { UsageCounter } from "../../../durable-objects/account-object";
import type { UnitHoldShape } from "../../../durable-objects/account/unit-outcome";
import type { Credits, Hold, Payer, StopReason } from "../credits/credits";
import type { Defer, Looked, Price, WalkProduct, ProductContext, WalkOptions } from "../product";

/** What a walk is asked: by an HTTP request, a bulk chunk, a monitor run or a re-check. */
export interface WalkRequest<In> {
  env: Env;
  payer: Payer | null;
  /** Ledger and history id: the HTTP request id, a bulk chunk, a monitor run or a re-check. */
  requestId: string;
  /** Queued work: settling the same operation twice charges once. */
  operationId?: string;
  /**
   * An HTTP request's `waitUntil`: the settlement (with the list writes) is made after the answer, which reports what
   * its hold said (or, if the request ends in an error, releases the hold). Queued work passes none and awaits it
   * before it acknowledges.
   */
  defer?: Defer;
  inputs: In[];
  options: WalkOptions;
  now?: number;
}

export interface ItemMeta {
  credits_used: number;
  cache_hit: boolean;
  suppressed: boolean;
  refreshed: boolean;
  fair_use_billed: boolean;
}

export interface WalkItem<In, Out> {
  index: number;
  input: In;
  data: Out;
  meta: ItemMeta;
  /** A test value's canonical answer (never in history or suppressions). */
  test: boolean;
}

/** Why the walk answered nothing: the first value could not be paid for, or the account's object refused the call. */
export type WalkRefusal =
  | { reason: StopReason }
  | { reason: "rate_limited"; message: string; retryAfterSeconds: number };

export interface WalkRun<In, Out> {
  /** In input order, up to where the walk stopped. */
  items: WalkItem<In, Out>[];
  requested: number;
  processed: number;
  creditsUsed: number;
  creditsRemaining: number;
  stoppedReason: StopReason | null;
  /** The first value could not be paid for, so nothing ran and nothing was charged: a surface answers 402 or 429. */
  refused: StopReason | null;
  /** The account's object refused the call (a rate limit of an HTTP request): nothing ran, nothing was charged. */
  rateLimited?: Extract<WalkRefusal, { reason: "rate_limited" }>;
  /** Prepaid units of the product left after the call (products whose credit buys several units). */
  prepaid: number | null;
  /** Values this call put on the account's suppression list (an undeliverable verdict); absent if it answered none. */
  suppressedNow?: number;
}

/** One distinct value of a list (by the product's key), and what is known about it before any credit is spent. */
export interface Unique<In, Out> {
  key: string;
  /** Position of its first occurrence. */
  index: number;
  input: In;
  /** Answered for free: a local answer (test value, malformed), a repeat or a suppressed value. */
  free?: { result: Out; cacheHit: boolean; suppressed: boolean; test: boolean; local: boolean };
  /** A repeat of a product that answers repeats fresh: looked up again, never charged. */
  repeat?: boolean;
  /** The answer replaces an earlier one (a repeat past `max_age`, or `refresh`). */
  refreshed: boolean;
  /** When the repeat first read for it was answered, if there was one. */
  repeatAt?: number | undefined;
  /** When the latest repeat marker read for it started (0: none); its hold's claim carries it (see claims.ts). */
  markerAt?: number;
  /** Filled once looked up. */
  looked?: Looked<Out>;
  /** What the product says of the fresh answer, asked once when it is looked up (walk/pay.ts `lookUp`). */
  judged?: Judged;
}

/** A fresh answer's price before the fair-use allowance, whether it starts a repeat window, and its suppression. */
export interface Judged {
  price: Price;
  repeatable: boolean;
  suppress: { reason: string } | null;
}

export interface Plan<In, Out> {
  uniques: Unique<In, Out>[];
  /** The key of every input position. */
  keyOf: string[];
}

/** A fresh answer's cost once the fair-use allowance has been applied. */
export interface Priced {
  units: number;
  fairUseBilled: boolean;
  counter?: UsageCounter;
  /** Counted against the fair-use window whether billed or not. */
  fairUse: boolean;
}

/** The walk's money so far: what was answered and at what price, where it stopped, and what its hold said. */
export interface Paid<In, Out> {
  /** Fresh uniques answered (looked up and paid for). */
  answered: { u: Unique<In, Out>; price: Priced }[];
  /** First input position not answered (the list's length when all were). */
  stopIndex: number;
  limitedBy: StopReason | null;
  holdId: string | null;
  /** Units the answers so far use: a later wave's hold keeps them. */
  spent: number;
  /** Fair-use answers still free, as the first hold said, less those answered since. */
  allowance: { left: number };
  /** What the latest hold said: credits it holds in all and credits available beside it. */
  afterHold?: { held: number; available: number };
  /**
   * The walk's one unit hold as it was made (a product whose credit buys several units), while no wave has resized it:
   * what lets the walk answer before settling (`unitOutcome`).
   */
  unitHold?: UnitHoldShape & { prepaid: number };
  /**
   * Answers settled before the walk waited on a concurrent walk (walk/set-down.ts), with what each was charged: the
   * walk's answer reports them beside those of its last hold. `parts`: how many settlements made them.
   */
  setDown?: { answered: { u: Unique<In, Out>; price: Priced }[]; credits: number[]; charged: number; parts: number };
}

/** The hold the walk's first call made with its recall (walk/begin.ts), for the first wave, and what it asked for. */
export interface First {
  hold: Hold;
  /** The keys the hold was asked for (the object leaves out values its rows answer free). */
  asked: string[];
}

/**
 * Everything one walk knows, carried from step to step (dedupe -> test values -> repeats -> suppressions -> reserve ->
 * look up -> settle -> stop): what was asked, the product, the money, and the list's distinct values as each step
 * leaves them.
 */
export interface WalkState<In, Out> extends Plan<In, Out> {
  product: WalkProduct<In, Out>;
  request: WalkRequest<In>;
  now: number;
  credits: Credits;
  /** The product's context: its own reads may come from a read replica near the caller. */
  ctx: ProductContext;
  paid: Paid<In, Out>;
}
