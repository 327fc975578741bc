import type { ClaimBook } from "../claims";
import type { Balance } from "./balance";
import type {
  AdmissionRequest,
  ReserveRequest,
  UnfinishedRequest,
  ReserveResult,
  ResizeRequest,
  Settlement,
  SettleResult,
} from "./types";
import { addColumn, PrepaidPool } from "./prepaid-pool";

/** A settlement is remembered this long, so a settle retried after a lost answer gets the same answer back. */
const SETTLED_RETENTION_MS = 86_400_000;

/** What an operation charged per key is kept this long: as long as the bulk runs that could be run again. */
const OPERATION_RETENTION_MS = 30 * 86_400_000;

/**
 * Holds on the balance: reserve before work, resize between the waves of a walk, settle what the answers cost (or
 * release). Units of products that sell several a credit are held from the account's prepaid pool of that product.
 */
export class Reservations {
  private readonly pool: PrepaidPool;

  constructor(
    private readonly sql: SqlStorage,
    private readonly balance: Balance,
    private readonly claims: ClaimBook,
    /** Told when a key's daily cap refuses or cuts short a hold (the account mails its members once a day per key). */
    private readonly capReached: (keyId: string, cap: number, now: number) => void = () => {},
  ) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS settled_operations (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS operation_charges (id TEXT PRIMARY KEY, at INTEGER NOT NULL, charges TEXT NOT NULL);
    `);
    sql.exec(`
      CREATE TABLE IF NOT EXISTS settled_reservations (id TEXT PRIMARY KEY, at INTEGER NOT NULL, answer TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS settled_reservations_at ON settled_reservations (at);
    `);
    // Objects created before this column: no request to record.
    addColumn(sql, "reservations", "request", "TEXT");
    this.pool = new PrepaidPool(sql);
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
      "INSERT INTO reservations (id, request_id, key_id, amount, created_at, request) VALUES (?, ?, ?, ?, ?, ?)",
      reservationId,
      request.requestId,
      request.keyId ?? null,
      grant.granted,
      now,
      record ? JSON.stringify(record) : null,
    );
    // The units of the credits bought beyond what this hold asked for are lent to the pool at once, so holds in flight
    // beside it share the credit instead of each needing a whole free one; settling decides who pays for it.
    const bought = grant.granted * perCredit;
    const lent = request.units ? Math.max(0, bought - (amount - held)) : 0;
    if (request.units) this.pool.open(reservationId, { product: request.units.product, held, perCredit, lent });
    const grantedUnits = held + bought - lent;
    const claimed = this.claims.take(request.claims?.product, open, grantedUnits, reservationId);
    const fairUseRemaining = this.balance.fairUse(now).free_undeliverable_remaining;
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
    if (!grant.ok) return { ok: false, reason: grant.reason, available: grant.available, busy };
    const grantedUnits = unitHold.held - unitHold.lent + amount * unitHold.perCredit - request.spent;
    const claimed = this.claims.take(request.claims?.product, open, grantedUnits, reservationId);
    return {
      ok: true,
      reservationId,
      granted: grant.granted,
      grantedUnits,
      limitedBy: grant.limitedBy,
      fairUseRemaining: this.balance.fairUse(now).free_undeliverable_remaining,
      busy,
      claimed,
      held: amount,
      available: this.balance.available(now),
    };
  }

  /**
   * How many credits a hold may take: what is available (plus what `own`, the reservation being resized, already
   * holds), within the key's daily cap, and with `share` at most half of it (never less than the minimum), so work in
   * flight never shuts out a concurrent request. `limitedBy` names what cut the grant short, if anything did.
   */
  private grant(
    now: number,
    g: {
      wanted: number;
      minimum: number;
      share: boolean;
      keyId: string | null;
      cap: number | null;
      own: number;
      spent?: number;
    },
  ):
    | { ok: true; granted: number; limitedBy: "insufficient_credits" | "key_spend_cap" | null; available: number }
    | { ok: false; reason: "insufficient_credits" | "key_spend_cap"; available: number } {
    const available = this.balance.available(now) + g.own - (g.spent ?? 0);
    let granted = Math.min(g.wanted, available);
    let limitedBy: "insufficient_credits" | "key_spend_cap" | null = granted < g.wanted ? "insufficient_credits" : null;
    if (g.keyId && g.cap != null) {
      const capLeft = Math.max(
        0,
        g.cap - this.balance.keySpentToday(g.keyId, now) - this.balance.keyHeld(g.keyId) + g.own - (g.spent ?? 0),
      );
      if (capLeft < g.minimum) {
        this.capReached(g.keyId, g.cap, now);
        return { ok: false, reason: "key_spend_cap", available };
      }
      if (capLeft < granted) {
        this.capReached(g.keyId, g.cap, now);
        granted = capLeft;
        limitedBy = "key_spend_cap";
      }
    }
    if (granted < g.minimum) return { ok: false, reason: "insufficient_credits", available };
    if (g.share) granted = Math.min(granted, Math.max(g.minimum, Math.ceil(available / 2)));
    return { ok: true, granted, limitedBy, available };
  }

  /**
   * Charges what the answer cost (at most what was reserved) and frees the rest. Settling twice charges once: a
   * settle retried (its first answer was lost on the way back) gets the first settlement's answer again, marked
   * `alreadySettled`, so the caller reports what was really charged.
   */
  settle(reservationId: string, settlement: Settlement): SettleResult {
    const now = settlement.now ?? Date.now();
    const reservation = this.sql
      .exec<{ request_id: string; key_id: string | null; amount: number }>(
        "SELECT request_id, key_id, amount FROM reservations WHERE id = ?",
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
      firstCharges: settlement.operationId ? this.operationCharges(settlement.operationId) : null,
    });
    if (!reservation) return this.settledBefore(reservationId, now) ?? nothing(true);
    const unitHold = this.pool.take(reservationId);
    this.sql.exec("DELETE FROM reservations WHERE id = ?", reservationId);
    this.claims.drop(reservationId);
    if (settlement.operationId) {
      const seen =
        this.sql.exec("SELECT id FROM settled_operations WHERE id = ?", settlement.operationId).toArray().length > 0;
      // Work settled before uses nothing now; a credit whose lent units others used is still paid.
      if (unitHold && seen)
        this.balance.charge(now, reservation, this.pool.close(unitHold, [], reservation.amount).charge);
      if (seen) return nothing(true);
      this.sql.exec("INSERT INTO settled_operations (id, at) VALUES (?, ?)", settlement.operationId, now);
    }
    const closed = unitHold
      ? this.pool.close(unitHold, units, reservation.amount, settlement.asAnswered === true)
      : null;
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
      this.sql.exec(
        "INSERT OR REPLACE INTO operation_charges (id, at, charges) VALUES (?, ?, ?)",
        settlement.operationId,
        now,
        JSON.stringify(charges),
      );
      // Queued work is never run again once its run is gone (bulk runs are kept 30 days).
      this.sql.exec("DELETE FROM operation_charges WHERE at < ?", now - OPERATION_RETENTION_MS);
    }
    this.balance.countUsage(settlement.usage ?? {}, now);
    const prepaid = unitHold ? this.pool.units(unitHold.product) : null;
    const answer = { charged, credits: perItem, prepaid };
    this.sql.exec(
      "INSERT OR REPLACE INTO settled_reservations (id, at, answer) VALUES (?, ?, ?)",
      reservationId,
      now,
      JSON.stringify(answer),
    );
    return { ...answer, remaining: this.balance.available(now), alreadySettled: false, firstCharges: null };
  }

  private settledBefore(reservationId: string, now: number): SettleResult | null {
    const row = this.sql
      .exec<{ answer: string }>("SELECT answer FROM settled_reservations WHERE id = ?", reservationId)
      .toArray()[0];
    if (!row) return null;
    const answer = JSON.parse(row.answer) as Pick<SettleResult, "charged" | "credits" | "prepaid">;
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
    this.sql.exec("DELETE FROM settled_reservations WHERE at < ?", now - SETTLED_RETENTION_MS);
  }

  /** When the oldest open hold was made, if one is open. */
  oldest(): number | null {
    return this.sql.exec<{ at: number | null }>("SELECT MIN(created_at) AS at FROM reservations").one().at;
  }

  /** Credits available now and, for a product that sells several units a credit, its prepaid units: one read. */
  available(product: string | null, now: number): { available: number; prepaid: number | null } {
    return { available: this.balance.available(now), prepaid: product === null ? null : this.pool.units(product) };
  }

  /**
   * What a settled operation charged, by key (keys charged nothing are absent); null when it was never settled. A
   * rerun of queued work (a bulk chunk after a crash) reports these, since its own answers are now free repeats.
   */
  operationCharges(operationId: string): Record<string, number> | null {
    const row = this.sql
      .exec<{ charges: string }>("SELECT charges FROM operation_charges WHERE id = ?", operationId)
      .toArray()[0];
    if (row) return JSON.parse(row.charges) as Record<string, number>;
    return this.sql.exec("SELECT 1 FROM settled_operations WHERE id = ?", operationId).toArray().length ? {} : null;
  }
}
