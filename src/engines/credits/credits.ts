import type { SettleResult, UsageCounter } from "../../../durable-objects/account-credits";

export type StopReason = "insufficient_credits" | "key_spend_cap";

/** Who pays: the account, and the key whose daily cap applies (null when no key is involved). */
export interface Payer {
  accountId: string;
  keyId: string | null;
  dailyCreditCap: number | null;
}

export interface HoldRequest {
  /** Ledger id of the charge: the HTTP request id, a bulk chunk or a monitor run. */
  requestId: string;
  product: string;
  units: number;
  unitsPerCredit: number;
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
    }
  | { ok: false; reason: StopReason };

export interface Charge {
  /** Units each answered item used, in answer order. */
  units: number[];
  usage?: Partial<Record<UsageCounter, number>>;
  /** Queued work that must never be charged twice (a bulk chunk, a monitor run, a re-check). */
  operationId?: string;
}

export type Settled = Pick<SettleResult, "charged" | "credits" | "remaining" | "prepaid">;

/**
 * Money as the walk sees it: hold before looking up, settle what the answers cost, release on failure. The account's
 * Durable Object is the real one; `freeCredits` answers for the sandbox and for work nobody pays for, so no walk
 * branches on whether there is a payer.
 */
export interface Credits {
  hold(request: HoldRequest): Promise<Hold>;
  settle(holdId: string, charge: Charge): Promise<Settled>;
  release(holdId: string): Promise<void>;
  /**
   * Credits available now (no hold), and the account's prepaid units of `unitsOf` when a product sells several units a
   * credit (null otherwise): one read, so a call that charged nothing still reports both.
   */
  remaining(unitsOf?: string): Promise<{ credits: number; prepaid: number | null }>;
}

/** The account's credits Durable Object: the only place a balance is read or written. */
export const creditsStub = (env: Env, accountId: string) => env.CREDITS.get(env.CREDITS.idFromName(accountId));

export function accountCredits(env: Env, payer: Payer): Credits {
  const stub = creditsStub(env, payer.accountId);
  return {
    async hold(request) {
      const reserved = await stub.reserve({
        requestId: request.requestId,
        amount: request.units,
        minimum: 1,
        keyId: payer.keyId,
        dailyCreditCap: payer.dailyCreditCap,
        ...(request.unitsPerCredit > 1 ? { units: { product: request.product, perCredit: request.unitsPerCredit } } : {}),
      });
      if (!reserved.ok) return { ok: false, reason: reserved.reason };
      return { ok: true, id: reserved.reservationId, units: reserved.grantedUnits, limitedBy: reserved.limitedBy, fairUseRemaining: reserved.fairUseRemaining };
    },
    async settle(holdId, charge) {
      const { charged, credits, remaining, prepaid } = await stub.settle(holdId, charge);
      return { charged, credits, remaining, prepaid };
    },
    async release(holdId) {
      await stub.release(holdId);
    },
    async remaining(unitsOf) {
      const { available, prepaid } = await stub.balance(unitsOf ?? null);
      return { credits: available, prepaid };
    },
  };
}

/** Nobody pays: every hold is granted in full and every answer costs 0. */
export const freeCredits: Credits = {
  async hold(request) {
    return { ok: true, id: "free", units: request.units, limitedBy: null, fairUseRemaining: Number.POSITIVE_INFINITY };
  },
  async settle(_holdId, charge) {
    return { charged: 0, credits: charge.units.map(() => 0), remaining: 0, prepaid: null };
  },
  async release() {},
  async remaining() {
    return { credits: 0, prepaid: null };
  },
};

export const creditsFor = (env: Env, payer: Payer | null): Credits => (payer ? accountCredits(env, payer) : freeCredits);
