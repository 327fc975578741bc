import type {
  AdmissionRequest,
  BeginRecall,
  Entered,
  ReserveRequest,
  ReserveResult,
} from "../../../durable-objects/account-object";
import type { Admission, Admitted } from "../../limits/admission";
import type { BeginOutcome, Credits, Hold, HoldRequest, Payer } from "./types";

/**
 * The first hold together with the account's stored rows (repeats, suppressions) of `recall.keys`: one call where
 * `recallLists` and `hold` would be two. Only the account's object has it (nobody else keeps lists).
 */
type BeginCall = (request: HoldRequest, recall: BeginRecall) => Promise<BeginOutcome>;

export type {
  StopReason,
  Payer,
  Hold,
  Settled,
  Credits,
} from "./types";

/** The account's credits Durable Object: the only place a balance is read or written. */
export const accountObject = (env: Env, accountId: string) => env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));

/**
 * The account's object as one request sees it: whichever of these the request calls first also carries its pending
 * admission (its rate limits), so admitting the request costs no round trip of its own. A refusal comes back as a
 * value, never thrown: each surface renders it its own way.
 */
export function accountEntry(env: Env, accountId: string, admission?: Admission) {
  const stub = accountObject(env, accountId);
  /** The `enter*` call while the request is not admitted yet, the plain one after. */
  async function call<T>(
    entering: (entry: AdmissionRequest) => Promise<Entered<T>>,
    plain: () => Promise<T>,
  ): Promise<Admitted<T>> {
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
    /** The walk's first call. */
    begin: (request: ReserveRequest, recall: BeginRecall) =>
      call(
        (entry) => stub.enterBegin(entry, request, recall),
        () => stub.begin(request, recall),
      ),
    /** The balance as the walk reads it when it held nothing. */
    balance: (product: string | null) =>
      call(
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

/**
 * Gives back what a request settled before its answer when the request ended in an error after all (its answer
 * never reached the caller): the account's object refunds the request's charges once, so a retry is safe; a failure
 * that outlasts the retries is logged against the request id.
 */
export async function refundRequest(env: Env, accountId: string, requestId: string): Promise<void> {
  await retried(() => accountObject(env, accountId).refundRequest(requestId)).catch((err) =>
    console.error(JSON.stringify({ event: "refund_failed", requestId, error: String(err) })),
  );
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

/** The account's object as a paying walk sees it: `Credits`, and the walk's first call (`openCredits`). */
function accountCredits(env: Env, payer: Payer): Credits & { begin: BeginCall } {
  const stub = accountObject(env, payer.accountId);
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
    // A walk's first call is `begin` (or, holding nothing, its balance read), which carries the request's admission:
    // a later hold never does.
    async hold(request) {
      return asHold(await stub.reserve(reserveOf(request)));
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
      const outcome = await entry.balance(unitsOf ?? null);
      if ("limited" in outcome) return outcome;
      return { credits: outcome.value.available, prepaid: outcome.value.prepaid };
    },
  };
}

/** A hold granted in full at no cost: a free hold and its resize answer alike. */
function freeHold(request: Pick<HoldRequest, "units" | "claims">): Hold {
  return {
    ok: true,
    id: "free",
    units: request.units,
    limitedBy: null,
    fairUseRemaining: Number.POSITIVE_INFINITY,
    busy: [],
    claimed: (request.claims ?? []).map((c) => c.key),
    held: 0,
    available: 0,
  };
}

/** Nobody pays: every hold is granted in full and every answer costs 0. */
export const freeCredits: Credits = {
  hold: async (request) => freeHold(request),
  resize: async (_holdId, request) => freeHold(request),
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

/**
 * A paying walk's first call to the account's object (`BeginCall`: its first hold and the values' stored rows, which
 * carries the request's admission), and the account's client every later step of that walk uses.
 */
export async function openCredits(env: Env, payer: Payer, request: HoldRequest, recall: BeginRecall) {
  const credits = accountCredits(env, payer);
  return { credits: credits as Credits, begun: await credits.begin(request, recall) };
}
