import type {
  AdmissionRequest,
  Entered,
  ReserveRequest,
  BeginRecall,
  Begun,
  ReserveResult,
  Settlement,
  SettleResult,
  UsageCounter,
} from "../../../durable-objects/account-credits";
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
  /**
   * The first hold together with the account's stored rows (repeats, suppressions) of `recall.keys`: one call where
   * `recallLists` and `hold` would be two. Only the account's object has it (nobody else keeps lists).
   */
  begin?(request: HoldRequest, recall: BeginRecall): Promise<BeginOutcome>;
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

/** The account's credits Durable Object: the only place a balance is read or written. */
export const creditsStub = (env: Env, accountId: string) => env.CREDITS.get(env.CREDITS.idFromName(accountId));

/**
 * The account's object as one request sees it: whichever of these the request calls first also carries its pending
 * admission (its rate limits), so admitting the request costs no round trip of its own.
 */
export function accountEntry(env: Env, accountId: string, admission?: Admission) {
  const stub = creditsStub(env, accountId);
  /** The `enter*` call while the request is not admitted yet, the plain one after. */
  async function call<T>(
    entering: (entry: AdmissionRequest) => Promise<Entered<T>>,
    plain: () => Promise<T>,
  ): Promise<T> {
    const entry = admission?.take();
    return entry ? admission!.value(await entering(entry)) : plain();
  }
  /** `call` for the walk: the admission's refusal as a value. */
  async function outcome<T>(
    entering: (entry: AdmissionRequest) => Promise<Entered<T>>,
    plain: () => Promise<T>,
  ): Promise<{ value: T } | { limited: RateLimitRefusal }> {
    const entry = admission?.take();
    return entry ? admission!.outcome(await entering(entry)) : { value: await plain() };
  }
  return {
    /** Admits the request if nothing admitted it yet (a route with nothing else to ask, or before its side effects). */
    admit: () =>
      call(
        (entry) => stub.enter(entry),
        async () => null,
      ),
    snapshot: () =>
      call(
        (entry) => stub.enterSnapshot(entry),
        () => stub.snapshot(),
      ),
    ledger: (page: number, perPage: number) =>
      call(
        (entry) => stub.enterLedger(entry, page, perPage),
        () => stub.ledger(page, perPage),
      ),
    /** The walk's first call; a rate limit comes back as a value, not thrown. */
    begin: (request: ReserveRequest, recall: BeginRecall) =>
      outcome(
        (entry) => stub.enterBegin(entry, request, recall),
        () => stub.begin(request, recall),
      ),
    reserve: (request: ReserveRequest) =>
      call<ReserveResult>(
        (entry) => stub.enterReserve(entry, request),
        () => stub.reserve(request),
      ),
    balance: (product: string | null) =>
      call(
        (entry) => stub.enterBalance(entry, product),
        () => stub.balance(product),
      ),
    /** The balance as the walk reads it when it held nothing; a rate limit comes back as a value, not thrown. */
    balanceOutcome: (product: string | null) =>
      outcome(
        (entry) => stub.enterBalance(entry, product),
        () => stub.balance(product),
      ),
  };
}

/** Settling is safe to retry (a settlement repeated answers the first one again), so a transient failure is retried. */
async function retried<T>(call: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= attempts || (err as { retryable?: boolean }).retryable !== true) throw err;
    }
  }
}

function asHold(reserved: ReserveResult): Hold {
  if (!reserved.ok) return { ok: false, reason: reserved.reason, busy: reserved.busy, available: reserved.available };
  const { reservationId: id, grantedUnits: units, limitedBy, fairUseRemaining, busy, claimed } = reserved;
  return {
    ok: true,
    id,
    units,
    limitedBy,
    fairUseRemaining,
    busy,
    claimed,
    held: reserved.held,
    available: reserved.available,
    ...(reserved.units ? { unitHold: { ...reserved.units, credits: reserved.held } } : {}),
  };
}

export function accountCredits(env: Env, payer: Payer): Credits {
  const stub = creditsStub(env, payer.accountId);
  const entry = accountEntry(env, payer.accountId, payer.admission);
  const claims = (product: string, items: { key: string; units: number }[] | undefined) =>
    items ? { claims: { product, items } } : {};
  const reserveOf = (request: HoldRequest): ReserveRequest => ({
    requestId: request.requestId,
    product: request.product,
    amount: request.units,
    minimum: 1,
    keyId: payer.keyId,
    dailyCreditCap: payer.dailyCreditCap,
    share: request.share ?? false,
    ...claims(request.product, request.claims),
    ...(request.unitsPerCredit > 1 ? { units: { product: request.product, perCredit: request.unitsPerCredit } } : {}),
  });
  return {
    async hold(request) {
      return asHold(await entry.reserve(reserveOf(request)));
    },
    async begin(request, recall) {
      const outcome = await entry.begin(reserveOf(request), recall);
      if ("limited" in outcome) return outcome;
      const begun = outcome.value;
      return { hold: asHold(begun.hold), recall: begun.recall, asked: begun.asked };
    },
    async resize(holdId, request) {
      const { product, claims: items, ...rest } = request;
      return asHold(
        await stub.resize(holdId, {
          ...rest,
          minimum: 1,
          dailyCreditCap: payer.dailyCreditCap,
          ...claims(product, items),
        }),
      );
    },
    async awaitClaims(product, keys, timeoutMs) {
      await stub.awaitClaims(product, keys, timeoutMs);
    },
    async settle(holdId, charge) {
      const { charged, credits, remaining, prepaid, firstCharges } = await retried(() => stub.settle(holdId, charge));
      return { charged, credits, remaining, prepaid, firstCharges };
    },
    operationCharges: (operationId) => stub.operationCharges(operationId),
    async release(holdId) {
      await retried(() => stub.release(holdId));
    },
    async remaining(unitsOf) {
      const outcome = await entry.balanceOutcome(unitsOf ?? null);
      if ("limited" in outcome) return outcome;
      return { credits: outcome.value.available, prepaid: outcome.value.prepaid };
    },
  };
}

/** Nobody pays: every hold is granted in full and every answer costs 0. */
export const freeCredits: Credits = {
  async hold(request) {
    const claimed = (request.claims ?? []).map((c) => c.key);
    return {
      ok: true,
      id: "free",
      units: request.units,
      limitedBy: null,
      fairUseRemaining: Number.POSITIVE_INFINITY,
      busy: [],
      claimed,
      held: 0,
      available: 0,
    };
  },
  async resize(_holdId, request) {
    const claimed = (request.claims ?? []).map((c) => c.key);
    return {
      ok: true,
      id: "free",
      units: request.units,
      limitedBy: null,
      fairUseRemaining: Number.POSITIVE_INFINITY,
      busy: [],
      claimed,
      held: 0,
      available: 0,
    };
  },
  async awaitClaims() {},
  async settle(_holdId, charge) {
    return { charged: 0, credits: charge.units.map(() => 0), remaining: 0, prepaid: null, firstCharges: null };
  },
  async operationCharges() {
    return null;
  },
  async release() {},
  async remaining() {
    return { credits: 0, prepaid: null };
  },
};

export const creditsFor = (env: Env, payer: Payer | null): Credits =>
  payer ? accountCredits(env, payer) : freeCredits;
