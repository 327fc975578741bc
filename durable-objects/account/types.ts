import type { PlanName } from "../../src/engines/credits/plans";
import type { Claims } from "../claims";
import type { ListsWrite } from "./list-types";

export type UsageCounter = "billed_answers" | "undeliverable_checked";

export interface ReserveRequest {
  requestId: string;
  /** The product the hold pays for: its charge's ledger row names it (the usage page's figures by product). */
  product?: string;
  /** Units wanted (credits, unless `units` says a credit buys several). */
  amount: number;
  /** Fewest units worth reserving (a batch takes what it can get); defaults to `amount`. */
  minimum?: number;
  /**
   * A product whose credit buys `perCredit` units (IP: five placing lookups). Units bought and not yet used are the
   * account's prepaid units of that product; a reservation holds them like credits, so they are exact under
   * concurrency.
   */
  units?: { product: string; perCredit: number };
  keyId?: string | null;
  dailyCreditCap?: number | null;
  /**
   * What the units pay for, in order: (product, key) pairs this reservation claims so concurrent requests for the same
   * value wait for its answer instead of paying again. When given, `amount` is the units of the keys nobody else holds.
   */
  claims?: Claims;
  /**
   * Work held while in flight (a remote walk's wave): take at most half of what is available, leaving room for others.
   */
  share?: boolean;
  now?: number;
}

/** Grows or shrinks a reservation for the next wave of a walk: `spent` units are already used and stay held. */
export interface ResizeRequest {
  spent: number;
  /** The paying key's daily cap as it is now (the reservation remembers the key, not its cap). */
  dailyCreditCap?: number | null;
  units: number;
  minimum?: number;
  claims?: Claims;
  share?: boolean;
  now?: number;
}

export type ReserveResult =
  | {
      ok: true;
      reservationId: string;
      /** Credits held. */
      granted: number;
      /** Units the holder may use: prepaid units held plus `perCredit` per credit held. */
      grantedUnits: number;
      /** Why fewer credits than asked for were granted, if they were. */
      limitedBy: "insufficient_credits" | "key_spend_cap" | null;
      /** Undeliverable-with-check verdicts still free in the rolling window, so callers need no second call. */
      fairUseRemaining: number;
      /** Claimed keys another live reservation holds: their answer is coming, so the caller waits for it. */
      busy: string[];
      /** Keys this reservation now claims (in order, as many as the granted units pay for). */
      claimed: string[];
      /** Credits the reservation holds in all after this call (a resize: what it held before plus this grant). */
      held: number;
      /**
       * Credits available after this hold: with `held`, what settling will leave (`available + held - charged`), so a
       * walk that settles after its answer still reports `credits_remaining` from this one call.
       */
      available: number;
      /**
       * A new hold of a product whose credit buys several units: the prepaid units it took (`held`), the units of its
       * credits lent to the pool, and the pool's units right after it: with `granted`, what `unitOutcome` needs.
       */
      units?: { held: number; lent: number; perCredit: number; prepaid: number };
    }
  | { ok: false; reason: "insufficient_credits" | "key_spend_cap"; available: number; busy: string[] };

export interface Settlement {
  /** Credits to charge, for a reservation without `units`; otherwise ignored in favour of `units`. */
  credits?: number;
  /** Units each answered item used, in answer order: what is charged, and what each item reports. */
  units?: number[];
  /**
   * A unit of queued work (a bulk chunk) that must never be charged twice: a second settlement with the same id
   * charges nothing, however often a redelivered message reruns the work.
   */
  operationId?: string;
  /** The key each of `units` answered, so an operation's charges can be told again per key (`operationCharges`). */
  keys?: string[];
  usage?: Partial<Record<UsageCounter, number>>;
  /**
   * A unit hold settled after its answer, which reported `unitOutcome` of the hold and `units`: the object applies
   * exactly that (no credit is given back for units others returned since), so the ledger charges what the answer said.
   */
  asAnswered?: boolean;
  /**
   * What the settled answers write to the account's lists (repeat markers, history, suppressions): applied in the same
   * synchronous step as the settlement, once (a repeated settlement writes nothing again).
   */
  lists?: { product: string; write: ListsWrite; at: number };
  now?: number;
}

export interface State {
  plan: PlanName;
  plan_status: "active" | "cancelled";
  plan_credits: number;
  pack_credits: number;
  cancelled_at: number | null;
  granted_month: number;
}

export interface LedgerRow {
  id: number;
  at: number;
  request_id: string | null;
  kind: "monthly_grant" | "plan_credit" | "pack_credit" | "charge" | "refund" | "expiry";
  plan_delta: number;
  pack_delta: number;
  plan_after: number;
  pack_after: number;
  key_id: string | null;
  note: string | null;
  /** The product a charge paid for; null for other movements and for charges made before the ledger named it. */
  product: string | null;
}

export interface UnitHold {
  product: string;
  /** Prepaid units taken from the pool. */
  held: number;
  perCredit: number;
  /** Units of the hold's credits put in the pool for holds beside it. */
  lent: number;
}

export interface SettleResult {
  charged: number;
  /** Credits each item reports, in the order of `Settlement.units`. */
  credits: number[];
  remaining: number;
  /** Prepaid units of the reservation's product left after this settlement (null for plain credit reservations). */
  prepaid: number | null;
  alreadySettled: boolean;
  /** For an operation settled before: what it charged then, by key. */
  firstCharges: Record<string, number> | null;
  /** The reservation's request (set when this call settled it): the account's object marks its list writes with it. */
  requestId?: string;
}

/** What refunding a request's settlements gave back (`AccountObject.refundRequest`). */
export interface RequestRefund {
  /** False when the request was refunded before (a retry): nothing moved this time. */
  applied: boolean;
  credits: number;
  /** Prepaid units its answers had used, back in the pool. */
  units: number;
}

export type AccountSnapshot = {
  plan: PlanName;
  plan_status: "active" | "cancelled";
  monthly_credits: number;
  cancelled_at: number | null;
  plan_credits_expire_at: number | null;
  next_grant_at: number | null;
  plan_credits: number;
  pack_credits: number;
  reserved: number;
  available: number;
  fair_use: {
    billed_answers: number;
    undeliverable_checked: number;
    free_undeliverable_limit: number;
    free_undeliverable_remaining: number;
  };
  /** The account's mail settings (absent from the balance's own snapshot; the object adds them). */
  mail?: { low_balance_threshold: number | null; bulk_finished_emails: boolean };
};

/** One rate limit to count before anything else in a call: `limit` requests per `windowMs` for `subject`. */
export interface LimitHit {
  name: string;
  subject: string;
  limit: number;
  windowMs: number;
}

/** What an HTTP request brings to its first call: the limits it counts, and who it is (to record it if it dies). */
export interface AdmissionRequest {
  hits: LimitHit[];
  request: { requestId: string; accountId: string; keyId: string | null; method: string; path: string };
}

/**
 * An answer to a request's first call: refused by a rate limit (nothing else was done), or admitted, with the call's
 * value and the account's policy stamps (product -> version; 0 = no policy; a product absent is not known here).
 */
export type Entered<T> =
  | { admitted: true; value: T; policies: Record<string, number> }
  | { admitted: false; limit: string; retryAfterSeconds: number };

/** An HTTP request whose hold expired unsettled: recorded as a free SERVER_ERROR made at `at`. */
export type UnfinishedRequest = AdmissionRequest["request"] & { at: number };

/**
 * Credits added by hand or by a payment: the bucket they land in, the ledger row's note, and the request id that
 * makes a payment apply once (null: an operator's grant with none). `now` defaults to the clock at the RPC edge.
 */
export interface CreditGrant {
  bucket: "plan" | "pack";
  amount: number;
  note: string | null;
  requestId: string | null;
  now?: number;
}
