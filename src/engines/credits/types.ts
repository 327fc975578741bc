import type { Begun, Settlement, SettleResult, UsageCounter } from "../../../durable-objects/account-object";
import type { UnitHoldShape } from "../../../durable-objects/account/unit-outcome";
import type { Admission, RateLimitRefusal } from "../../limits/admission";

export type StopReason = "insufficient_credits" | "key_spend_cap";

/** Who pays: the account, and the key whose daily cap applies (null when no key is involved). */
export interface Payer {
  accountId: string;
  keyId: string | null;
  dailyCreditCap: number | null;
  /** An HTTP request's pending admission: its first call to the account's object carries it. */
  admission?: Admission;
}

export interface HoldRequest {
  /** Ledger id of the charge: the HTTP request id, a bulk chunk or a monitor run. */
  requestId: string;
  product: string;
  units: number;
  unitsPerCredit: number;
  /**
   * The keys the units pay for, in order, each with its units: the hold claims them, so a concurrent walk for the same
   * (account, product, key) waits for this answer instead of paying for its own. Keys someone else claims come back
   * as `busy` and are not held for.
   */
  claims?: { key: string; units: number; seen?: number }[];
  /** Held while looked up (a remote wave): the hold leaves room for concurrent requests (see the credits object). */
  share?: boolean;
}

/** The next wave of a walk on its hold: `spent` units are used; the hold grows to pay for `units` more. */
export interface Resize {
  product: string;
  spent: number;
  units: number;
  claims?: { key: string; units: number; seen?: number }[];
  share?: boolean;
}

export type Hold =
  | {
      ok: true;
      id: string;
      /** Units the holder may use. */
      units: number;
      /** Why fewer units than asked for were granted, if they were. */
      limitedBy: StopReason | null;
      /** Fair-use answers still free in the rolling window. */
      fairUseRemaining: number;
      /** Claimed keys a concurrent walk is answering now. */
      busy: string[];
      /** Keys this hold claims (with claims: the ones its units pay for, in order). */
      claimed: string[];
      /** Credits the hold takes in all, and credits available beside it (see the credits object's ReserveResult). */
      held: number;
      available: number;
      /** A new unit hold (not a resize): what settling it needs besides `held`, and the pool right after it. */
      unitHold?: UnitHoldShape & { prepaid: number };
    }
  | { ok: false; reason: StopReason; busy: string[]; available?: number };

export interface Charge {
  /** Units each answered item used, in answer order. */
  units: number[];
  usage?: Partial<Record<UsageCounter, number>>;
  /** Queued work that must never be charged twice (a bulk chunk, a monitor run, a re-check). */
  operationId?: string;
  /** The key of each item of `units`: an operation remembers what it charged per key. */
  keys?: string[];
  /** The account's list writes of these answers, made in the same step as the settlement (see the credits object). */
  lists?: Settlement["lists"];
  /** A unit hold settled after an answer that reported `unitOutcome` (see the credits object's Settlement). */
  asAnswered?: boolean;
}

export type Settled = Pick<SettleResult, "charged" | "credits" | "remaining" | "prepaid" | "firstCharges">;

/**
 * Money as the walk sees it: hold before looking up, settle what the answers cost, release on failure. The account's
 * Durable Object is the real one; `freeCredits` answers for the sandbox and for work nobody pays for, so no walk
 * branches on whether there is a payer.
 */
export interface Credits {
  hold(request: HoldRequest): Promise<Hold>;
  resize(holdId: string, request: Resize): Promise<Hold>;
  /** Waits until none of `keys` is claimed by a concurrent walk (or `timeoutMs` passed). */
  awaitClaims(product: string, keys: string[], timeoutMs: number): Promise<void>;
  settle(holdId: string, charge: Charge): Promise<Settled>;
  release(holdId: string): Promise<void>;
  /** What an operation charged when it was first settled, by key; null when it never was. */
  operationCharges(operationId: string): Promise<Record<string, number> | null>;
  /**
   * Credits available now (no hold), and the account's prepaid units of `unitsOf` when a product sells several units a
   * credit (null otherwise): one read, so a call that charged nothing still reports both.
   */
  remaining(unitsOf?: string): Promise<Remaining>;
}

/**
 * The first call's answer: the hold and the rows, or the rate limit the request's admission hit (a value: the walk
 * hands it to the surface, which renders it its own way).
 */
export type BeginOutcome = { hold: Hold; recall: Begun["recall"]; asked: string[] } | { limited: RateLimitRefusal };

/** What is left, or the rate limit the request's admission hit when this was its first call (a value). */
export type Remaining = { credits: number; prepaid: number | null } | { limited: RateLimitRefusal };
