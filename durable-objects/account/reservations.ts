import type { ClaimBook } from "../claims";
import type { Balance } from "./balance";
import type {
  AdmissionRequest,
  ReserveRequest,
  UnfinishedRequest,
  RequestRefund,
  ReserveResult,
  ResizeRequest,
  Settlement,
  SettleResult,
} from "./types";
import { type GrantAsk, grantCredits } from "./grant";
import { addColumn, PrepaidPool } from "./prepaid-pool";
import { RequestRefunds } from "./request-refunds";
import { SettledRecords } from "./settled";

/**
 * Holds on the balance: reserve before work, resize between the waves of a walk, settle what the answers cost (or
 * release). Units of products that sell several a credit are held from the account's prepaid pool of that product.
 */
export class Reservations {
  private readonly pool: PrepaidPool;
  private readonly settled: SettledRecords;
  private readonly refunds: RequestRefunds;

  constructor(
    private readonly sql: SqlStorage,
    private readonly balance: Balance,
    private readonly claims: ClaimBook,
    /** Told when a key's daily cap refuses or cuts short a hold (the account mails its members once a day per key). */
    private readonly capReached: (keyId: string, cap: number, now: number) => void = () => {},
  ) {
    this.settled = new SettledRecords(sql);
    // Objects created before these columns: no request to record; no product to name in the charge's ledger row.
    addColumn(sql, "reservations", "request", "TEXT");
    addColumn(sql, "reservations", "product", "TEXT");
    this.pool = new PrepaidPool(sql);
    this.refunds = new RequestRefunds(sql, balance, this.pool);
  }

  /** `record`: the HTTP request behind the hold, recorded as free if the hold expires unsettled (its Worker died). */
  reserve(request: ReserveRequest, record?: AdmissionRequest["request"]): ReserveResult {
    const now = request.now ?? Date.now();
    const { busy, open } = this.claims.sort(request.claims, null, request.requestId);
    const amount = request.claims ? open.reduce((sum, c) => sum + c.units, 0) : request.amount;
    const perCredit = request.units?.perCredit ?? 1;
    const held = request.units ? Math.min(this.pool.units(request.units.product), amount) : 0;
    const wanted = Math.ceil((amount - held) / perCredit);
    const minimum = Math.max(0, Math.ceil((Math.min(request.minimum ?? amount, amount) - held) / perCredit));
    const grant = this.grant(now, {
      wanted,
      minimum,
      share: request.share === true,
      keyId: request.keyId ?? null,
      cap: request.dailyCreditCap ?? null,
      own: 0,
    });
    if (!grant.ok) return { ok: false, reason: grant.reason, available: grant.available, busy };
    if (grant.granted + held <= 0 && amount > 0)
      return { ok: false, reason: "insufficient_credits", available: grant.available, busy };
    const reservationId = crypto.randomUUID();
    this.sql.exec(
      "INSERT INTO reservations (id, request_id, key_id, amount, created_at, request, product) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
      reservationId,
      request.requestId,
      request.keyId ?? null,
      grant.granted,
      now,
      record ? JSON.stringify(record) : null,
      request.product ?? request.units?.product ?? request.claims?.product ?? null,
    );
    this.balance.heldMoved(grant.granted);
    // The units of the credits bought beyond what this hold asked for are lent to the pool at once, so holds in flight
    // beside it share the credit instead of each needing a whole free one; settling decides who pays for it.
    const bought = grant.granted * perCredit;
    const lent = request.units ? Math.max(0, bought - (amount - held)) : 0;
    if (request.units) this.pool.open(reservationId, { product: request.units.product, held, perCredit, lent });
    const grantedUnits = held + bought - lent;
    const claimed = this.claims.take(request.claims?.product, open, grantedUnits, reservationId);
    const fairUseRemaining = this.balance.fairUse.read(now).free_undeliverable_remaining;
    return {
      ok: true,
      reservationId,
      granted: grant.granted,
      grantedUnits,
      limitedBy: grant.limitedBy,
      fairUseRemaining,
      busy,
      claimed,
      held: grant.granted,
      available: this.balance.available(now),
      ...(request.units ? { units: { held, lent, perCredit, prepaid: this.pool.units(request.units.product) } } : {}),
    };
  }

  /**
   * The next wave of a walk on the same reservation (one reservation, so one ledger row and one operation id however
   * many waves): the hold becomes the `spent` units plus what the wave may use, so between waves it shrinks back to
   * what answers used. A wave that cannot be paid leaves the hold at `spent`.
   */
  resize(reservationId: string, request: ResizeRequest): ReserveResult {
    const now = request.now ?? Date.now();
    const reservation = this.sql
      .exec<{ key_id: string | null; amount: number; request_id: string }>(
        "SELECT key_id, amount, request_id FROM reservations WHERE id = ?",
        reservationId,
      )
      .toArray()[0];
    const { busy, open } = this.claims.sort(request.claims, reservationId, reservation?.request_id ?? null);
    if (!reservation) return { ok: false, reason: "insufficient_credits", available: 0, busy };
    const unitHold = this.pool.read(reservationId) ?? { product: "", held: 0, perCredit: 1, lent: 0 };
    const units = request.claims ? open.reduce((sum, c) => sum + c.units, 0) : request.units;
    // Units lent to the pool are not the hold's to use: its credits must cover them too.
    const creditsFor = (n: number) => Math.max(0, Math.ceil((n - unitHold.held + unitHold.lent) / unitHold.perCredit));
    const spent = creditsFor(request.spent);
    const grant = this.grant(now, {
      wanted: creditsFor(request.spent + units) - spent,
      minimum: creditsFor(request.spent + Math.min(request.minimum ?? units, units)) - spent,
      share: request.share === true,
      keyId: reservation.key_id,
      cap: request.dailyCreditCap ?? null,
      own: reservation.amount,
      spent,
    });
    const amount = grant.ok ? spent + grant.granted : spent;
    this.sql.exec("UPDATE reservations SET amount = ? WHERE id = ?", amount, reservationId);
    this.balance.heldMoved(amount - reservation.amount);
    if (!grant.ok) return { ok: false, reason: grant.reason, available: grant.available, busy };
    const grantedUnits = unitHold.held - unitHold.lent + amount * unitHold.perCredit - request.spent;
    const claimed = this.claims.take(request.claims?.product, open, grantedUnits, reservationId);
    return {
      ok: true,
      reservationId,
      granted: grant.granted,
      grantedUnits,
      limitedBy: grant.limitedBy,
      fairUseRemaining: this.balance.fairUse.read(now).free_undeliverable_remaining,
      busy,
      claimed,
      held: amount,
      available: this.balance.available(now),
    };
  }

  private grant(now: number, ask: GrantAsk) {
    return grantCredits(this.balance, now, ask, this.capReached);
  }

  /**
   * Charges what the answer cost (at most what was reserved) and frees the rest. Settling twice charges once: a
   * settle retried (its first answer was lost on the way back) gets the first settlement's answer again, marked
   * `alreadySettled`, so the caller reports what was really charged.
   */
  settle(reservationId: string, settlement: Settlement): SettleResult {
    const now = settlement.now ?? Date.now();
    // Read and removed in one statement: the hold is gone from here on, whatever this settlement charges.
    const reservation = this.sql
      .exec<{ request_id: string; key_id: string | null; amount: number; product: string | null }>(
        "DELETE FROM reservations WHERE id = ? RETURNING request_id, key_id, amount, product",
        reservationId,
      )
      .toArray()[0];
    const units = settlement.units ?? [settlement.credits ?? 0];
    const nothing = (alreadySettled: boolean): SettleResult => ({
      charged: 0,
      credits: units.map(() => 0),
      remaining: this.balance.available(now),
      prepaid: null,
      alreadySettled,
      firstCharges: settlement.operationId ? this.settled.operationCharges(settlement.operationId) : null,
    });
    if (!reservation) return this.settledBefore(reservationId, now) ?? nothing(true);
    this.balance.heldMoved(-reservation.amount);
    const unitHold = this.pool.take(reservationId);
    this.claims.drop(reservationId);
    if (settlement.operationId && this.settled.settleOnce(settlement.operationId, now)) {
      // Work settled before uses nothing now; a credit whose lent units others used is still paid.
      if (unitHold) this.balance.charge(now, reservation, this.pool.close(unitHold, [], reservation.amount).charge);
      return nothing(true);
    }
    const closed = unitHold
      ? this.pool.close(unitHold, units, reservation.amount, settlement.asAnswered === true)
      : null;
    // What a refund of the request gives back to the pool. Queued work is never refunded, nor a settlement made after
    // its answer (`asAnswered`): a request that failed released that hold instead of settling it.
    if (unitHold && !settlement.operationId && settlement.asAnswered !== true)
      this.refunds.keepUnits(
        reservation.request_id,
        unitHold,
        units.reduce((a, b) => a + Math.max(0, b), 0),
        now,
      );
    const perItem = closed ? closed.perItem : units.map((n) => Math.max(0, n));
    const charged = this.balance.charge(
      now,
      reservation,
      closed
        ? closed.charge
        : Math.min(
            perItem.reduce((a, b) => a + b, 0),
            reservation.amount,
          ),
    );
    if (settlement.operationId && settlement.keys) {
      const charges = Object.fromEntries(settlement.keys.flatMap((key, i) => (perItem[i] ? [[key, perItem[i]]] : [])));
      this.settled.keepCharges(settlement.operationId, charges, now);
    }
    this.balance.fairUse.count(settlement.usage ?? {}, now);
    const prepaid = unitHold ? this.pool.units(unitHold.product) : null;
    const answer = { charged, credits: perItem, prepaid };
    this.settled.remember(reservationId, answer, now);
    return {
      ...answer,
      remaining: this.balance.available(now),
      alreadySettled: false,
      firstCharges: null,
      requestId: reservation.request_id,
    };
  }

  /** Gives back what a request's settlements charged, once (`RequestRefunds`). */
  refund(requestId: string, when: { now: number; since: number }): RequestRefund {
    return this.refunds.refund(requestId, when);
  }

  private settledBefore(reservationId: string, now: number): SettleResult | null {
    const answer = this.settled.answerOf(reservationId);
    if (!answer) return null;
    return { ...answer, remaining: this.balance.available(now), alreadySettled: true, firstCharges: null };
  }

  /** The HTTP requests behind holds made before `cutoff` (their Worker died mid-request), with when they were made. */
  unfinished(cutoff: number): UnfinishedRequest[] {
    const rows = this.sql
      .exec<{ request: string | null; created_at: number }>(
        "SELECT request, created_at FROM reservations WHERE created_at <= ? AND request IS NOT NULL",
        cutoff,
      )
      .toArray();
    return rows.map((r) => ({ ...(JSON.parse(r.request!) as AdmissionRequest["request"]), at: r.created_at }));
  }

  /**
   * Releases every hold made before `cutoff` as a failed request is released (nothing used is charged; lent units are
   * taken back, or their credit paid when others used them), and forgets settlements too old to be retried.
   */
  expire(cutoff: number, now: number): void {
    const expired = this.sql
      .exec<{ id: string }>("SELECT id FROM reservations WHERE created_at <= ?", cutoff)
      .toArray();
    for (const { id } of expired) this.settle(id, { now });
    this.settled.prune(now);
    this.refunds.prune(now);
  }

  /** When the oldest open hold was made, if one is open. */
  oldest(): number | null {
    return this.sql.exec<{ at: number | null }>("SELECT MIN(created_at) AS at FROM reservations").one().at;
  }

  /** Credits available now and, for a product that sells several units a credit, its prepaid units: one read. */
  available(product: string | null, now: number): { available: number; prepaid: number | null } {
    return { available: this.balance.available(now), prepaid: product === null ? null : this.pool.units(product) };
  }

  /** What a settled operation charged, by key; null when it was never settled (see SettledRecords). */
  operationCharges(operationId: string): Record<string, number> | null {
    return this.settled.operationCharges(operationId);
  }
}
