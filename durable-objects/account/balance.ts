import {
  applyMonthlyGrants,
  CANCEL_GRACE_MS,
  monthIndex,
  monthStart,
  PLANS,
  type PlanName,
  splitCharge,
} from "../../src/engines/credits/plans";
import { FairUseWindow } from "./fair-use";
import { KeySpend } from "./key-spend";
import { appendLedger, createLedger, dailyCharges, type DailyCharge, ledgerPage, movementsOf } from "./ledger";
import type { AccountSnapshot, CreditGrant, LedgerRow, State } from "./types";

/** What a charge is made against: the reservation's request, key and product (null: a hold made before products). */
interface Charged {
  request_id: string;
  key_id: string | null;
  product: string | null;
}

/** A movement of the balance to write: the state before it, the buckets after it, and what the ledger row says. */
interface Movement {
  at: number;
  requestId: string | null;
  kind: LedgerRow["kind"];
  before: State;
  plan: number;
  pack: number;
  keyId?: string | null;
  note?: string | null;
  product?: string | null;
}

/**
 * The account's balances and everything that moves them: plan and pack credits with their lazy monthly grants and
 * expiry, the ledger (one row per movement, ledger.ts), per-key daily spend, and the rolling fair-use counters
 * (`fairUse`, fair-use.ts). What reservations hold is subtracted here too, so "available" has one definition. Reads
 * never write, except a grant or expiry that fell due since the last call.
 */
export class Balance {
  /**
   * The state row as last read or written (every write goes through this class), so the hot path's reads cost no
   * query; null when not known.
   */
  private state: State | null = null;
  /**
   * What open reservations hold, as last read or moved (Reservations reports every change it writes), so a hold and
   * a settle read no SUM; null when not known.
   */
  private heldTotal: number | null = null;
  readonly fairUse: FairUseWindow;
  /** What each key was charged per UTC day (its daily cap). */
  readonly keySpend: KeySpend;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL,
        plan_status TEXT NOT NULL, plan_credits INTEGER NOT NULL, pack_credits INTEGER NOT NULL, cancelled_at INTEGER,
        granted_month INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS key_spend (key_id TEXT NOT NULL, day TEXT NOT NULL, spent INTEGER NOT NULL,
        PRIMARY KEY (key_id, day));
      CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, key_id TEXT,
        amount INTEGER NOT NULL, created_at INTEGER NOT NULL);
    `);
    createLedger(sql);
    this.fairUse = new FairUseWindow(sql);
    this.keySpend = new KeySpend(sql);
  }

  /**
   * Sets the plan (creating the balance on first use) or cancels it; plan credits then expire after the grace period.
   */
  setPlan(plan: PlanName | "cancelled", now: number): void {
    if (plan === "cancelled") {
      const state = this.current(now);
      if (state.plan_status === "active")
        this.sql.exec("UPDATE state SET plan_status = 'cancelled', cancelled_at = ?", now);
      this.state = null;
    } else {
      this.current(now, plan);
      this.sql.exec("UPDATE state SET plan = ?, plan_status = 'active', cancelled_at = NULL", plan);
      this.state = null;
    }
  }

  /** Adds operator-granted plan credits or purchased pack credits. */
  addCredits({ bucket, amount, note, requestId, now }: CreditGrant & { now: number }): void {
    const state = this.current(now);
    const plan = state.plan_credits + (bucket === "plan" ? amount : 0);
    const pack = state.pack_credits + (bucket === "pack" ? amount : 0);
    this.write({
      at: now,
      requestId,
      kind: bucket === "plan" ? "plan_credit" : "pack_credit",
      before: state,
      plan,
      pack,
      note,
    });
  }

  /** Whether a movement with this request id is in the ledger (a payment event applied before). */
  hasMovement(requestId: string): boolean {
    return this.sql.exec("SELECT 1 FROM ledger WHERE request_id = ? LIMIT 1", requestId).toArray().length > 0;
  }

  /**
   * Takes back refunded pack credits: a `pack_credit` row with a negative delta. Credits already spent cannot be
   * taken back, so it takes at most what the pack bucket holds; returns what it took.
   */
  removePackCredits(amount: number, note: string | null, requestId: string, now: number): number {
    const state = this.current(now);
    const taken = Math.min(amount, state.pack_credits);
    if (taken > 0)
      this.write({
        at: now,
        requestId,
        kind: "pack_credit",
        before: state,
        plan: state.plan_credits,
        pack: state.pack_credits - taken,
        note,
      });
    return taken;
  }

  /** Charges `credits` (plan credits first) against the reservation's key and writes the ledger row. */
  charge(now: number, reservation: Charged, credits: number): number {
    const state = this.current(now);
    const { fromPlan, fromPack } = splitCharge(credits, state.plan_credits, state.pack_credits);
    const charged = fromPlan + fromPack;
    if (charged <= 0) return 0;
    this.write({
      at: now,
      requestId: reservation.request_id,
      kind: "charge",
      before: state,
      plan: state.plan_credits - fromPlan,
      pack: state.pack_credits - fromPack,
      keyId: reservation.key_id,
      product: reservation.product,
    });
    if (reservation.key_id) this.keySpend.add(reservation.key_id, now, charged);
    return charged;
  }

  /** Credits neither spent nor held. */
  available(now: number): number {
    const state = this.current(now);
    return Math.max(0, state.plan_credits + state.pack_credits - this.held());
  }

  held(): number {
    this.heldTotal ??= this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations").one().n;
    return this.heldTotal;
  }

  /** A reservation was written: what reservations hold moved by `delta` (every write to them goes through here). */
  heldMoved(delta: number): void {
    if (this.heldTotal !== null) this.heldTotal += delta;
  }

  keyHeld(keyId: string): number {
    return this.sql
      .exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations WHERE key_id = ?", keyId)
      .one().n;
  }

  snapshot(now: number): AccountSnapshot {
    const state = this.current(now);
    const held = this.held();
    return {
      plan: state.plan,
      plan_status: state.plan_status,
      monthly_credits: PLANS[state.plan].monthlyCredits,
      cancelled_at: state.cancelled_at,
      plan_credits_expire_at: state.cancelled_at === null ? null : state.cancelled_at + CANCEL_GRACE_MS,
      next_grant_at: state.plan_status === "active" ? monthStart(monthIndex(now) + 1) : null,
      plan_credits: state.plan_credits,
      pack_credits: state.pack_credits,
      reserved: held,
      available: Math.max(0, state.plan_credits + state.pack_credits - held),
      fair_use: this.fairUse.read(now),
    };
  }

  ledger(page: number, perPage: number, now: number): { rows: LedgerRow[]; total: number } {
    this.current(now);
    return ledgerPage(this.sql, page, perPage);
  }

  /** The ledger's rows of one request or operation id (the dashboard's pages for a ledger row). */
  movements(requestId: string): LedgerRow[] {
    return movementsOf(this.sql, requestId);
  }

  /** Credits charged since `since` per UTC day and product, grants and expiries due by `now` applied first. */
  dailyCharges(since: number, now: number): DailyCharge[] {
    this.current(now);
    return dailyCharges(this.sql, since);
  }

  /** The state with every monthly grant and expiry due by `now` applied (lazily: no cron needed). */
  current(now: number, initialPlan: PlanName = "free"): State {
    let state =
      this.state ??
      (this.sql.exec<Record<keyof State, SqlStorageValue>>("SELECT * FROM state").toArray()[0] as State | undefined);
    // A balance made now gets its first grant now: dated the month's start, it would predate the account.
    const created = !state;
    if (!state) {
      const fresh: State = {
        plan: initialPlan,
        plan_status: "active",
        plan_credits: 0,
        pack_credits: 0,
        cancelled_at: null,
        granted_month: monthIndex(now) - 1,
      };
      this.sql.exec(
        "INSERT INTO state (id, plan, plan_status, plan_credits, pack_credits, cancelled_at, granted_month) VALUES " +
          "(1, ?, 'active', 0, 0, NULL, ?)",
        fresh.plan,
        fresh.granted_month,
      );
      state = fresh;
    }
    const month = monthIndex(now);
    if (state.plan_status === "active" && state.granted_month < month) {
      const plan = applyMonthlyGrants(
        state.plan_credits,
        PLANS[state.plan].monthlyCredits,
        month - state.granted_month,
      );
      this.sql.exec("UPDATE state SET granted_month = ?", month);
      state = { ...state, granted_month: month };
      if (plan !== state.plan_credits) {
        this.write({
          at: created ? now : monthStart(month),
          requestId: null,
          kind: "monthly_grant",
          before: state,
          plan,
          pack: state.pack_credits,
          note: `${state.plan} plan`,
        });
        state = { ...state, plan_credits: plan };
      }
    }
    if (
      state.plan_status === "cancelled" &&
      state.cancelled_at !== null &&
      now >= state.cancelled_at + CANCEL_GRACE_MS &&
      state.plan_credits > 0
    ) {
      this.write({
        at: state.cancelled_at + CANCEL_GRACE_MS,
        requestId: null,
        kind: "expiry",
        before: state,
        plan: 0,
        pack: state.pack_credits,
        note: "plan cancelled 60 days ago",
      });
      state = { ...state, plan_credits: 0 };
    }
    this.state = state;
    return state;
  }

  /** Moves the buckets and writes the movement's ledger row (a refund of a failed request, `RequestRefunds`). */
  write(m: Movement) {
    this.sql.exec("UPDATE state SET plan_credits = ?, pack_credits = ?", m.plan, m.pack);
    if (this.state) this.state = { ...this.state, plan_credits: m.plan, pack_credits: m.pack };
    appendLedger(this.sql, {
      at: m.at,
      request_id: m.requestId,
      kind: m.kind,
      plan_delta: m.plan - m.before.plan_credits,
      pack_delta: m.pack - m.before.pack_credits,
      plan_after: m.plan,
      pack_after: m.pack,
      key_id: m.keyId ?? null,
      note: m.note ?? null,
      product: m.product ?? null,
    });
  }
}
