import {
  applyMonthlyGrants,
  CANCEL_GRACE_MS,
  FAIR_USE_WINDOW_MS,
  freeUndeliverableLimit,
  monthIndex,
  monthStart,
  PLANS,
  type PlanName,
  splitCharge,
  utcDay,
} from "../../src/engines/credits/plans";
import type { AccountSnapshot, LedgerRow, State, UsageCounter } from "./types";

const HOUR_MS = 3_600_000;
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * The account's balances and everything that moves them: plan and pack credits with their lazy monthly grants and
 * expiry, the ledger (one row per movement), per-key daily spend and the rolling fair-use counters. What reservations
 * hold is subtracted here too, so "available" has one definition. Reads never write, except a grant or expiry that
 * fell due since the last call.
 */
export class Balance {
  /**
   * The state row and the fair-use sums as last read or written (every write goes through this class), so the hot
   * path's reads cost no query; null when not known. The sums are kept for the hour they were counted in.
   */
  private state: State | null = null;
  private usage: { hour: number; sums: Record<UsageCounter, number> } | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL,
        plan_status TEXT NOT NULL, plan_credits INTEGER NOT NULL, pack_credits INTEGER NOT NULL, cancelled_at INTEGER,
        granted_month INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, request_id TEXT,
        kind TEXT NOT NULL, plan_delta INTEGER NOT NULL, pack_delta INTEGER NOT NULL, plan_after INTEGER NOT NULL,
        pack_after INTEGER NOT NULL, key_id TEXT, note TEXT);
      CREATE TABLE IF NOT EXISTS key_spend (key_id TEXT NOT NULL, day TEXT NOT NULL, spent INTEGER NOT NULL,
        PRIMARY KEY (key_id, day));
      CREATE TABLE IF NOT EXISTS usage_hours (hour INTEGER NOT NULL, counter TEXT NOT NULL, n INTEGER NOT NULL,
        PRIMARY KEY (hour, counter));
      CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, key_id TEXT,
        amount INTEGER NOT NULL, created_at INTEGER NOT NULL);
    `);
    // Objects that kept a row per settlement: folded into hours once (a busy account's window read summed them all).
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage'").toArray().length) {
      sql.exec(`INSERT INTO usage_hours (hour, counter, n) SELECT (at / ${HOUR_MS}) * ${HOUR_MS}, counter, SUM(n)
        FROM usage GROUP BY 1, 2
        ON CONFLICT (hour, counter) DO UPDATE SET n = n + excluded.n`);
      sql.exec("DROP TABLE usage");
    }
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
  addCredits(
    bucket: "plan" | "pack",
    amount: number,
    note: string | null,
    requestId: string | null,
    now: number,
  ): void {
    const state = this.current(now);
    const plan = state.plan_credits + (bucket === "plan" ? amount : 0);
    const pack = state.pack_credits + (bucket === "pack" ? amount : 0);
    this.write(now, requestId, bucket === "plan" ? "plan_credit" : "pack_credit", state, plan, pack, null, note);
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
      this.write(now, requestId, "pack_credit", state, state.plan_credits, state.pack_credits - taken, null, note);
    return taken;
  }

  /** Charges `credits` (plan credits first) against the reservation's key and writes the ledger row. */
  charge(now: number, reservation: { request_id: string; key_id: string | null }, credits: number): number {
    const state = this.current(now);
    const { fromPlan, fromPack } = splitCharge(credits, state.plan_credits, state.pack_credits);
    const charged = fromPlan + fromPack;
    if (charged <= 0) return 0;
    this.write(
      now,
      reservation.request_id,
      "charge",
      state,
      state.plan_credits - fromPlan,
      state.pack_credits - fromPack,
      reservation.key_id,
      null,
    );
    if (reservation.key_id) {
      this.sql.exec(
        "INSERT INTO key_spend (key_id, day, spent) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET spent = " +
          "spent + excluded.spent",
        reservation.key_id,
        utcDay(now),
        charged,
      );
    }
    return charged;
  }

  countUsage(usage: Partial<Record<UsageCounter, number>>, now: number): void {
    if (!Object.values(usage).some(Boolean)) return;
    this.prune(now);
    this.usage = null;
    for (const [counter, n] of Object.entries(usage)) {
      if (n)
        this.sql.exec(
          "INSERT INTO usage_hours (hour, counter, n) VALUES (?, ?, ?) ON CONFLICT (hour, counter) DO UPDATE SET n = " +
            "n + excluded.n",
          hourOf(now),
          counter,
          n,
        );
    }
  }

  /** Credits neither spent nor held. */
  available(now: number): number {
    const state = this.current(now);
    return Math.max(0, state.plan_credits + state.pack_credits - this.held());
  }

  held(): number {
    return this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations").one().n;
  }

  keyHeld(keyId: string): number {
    return this.sql
      .exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations WHERE key_id = ?", keyId)
      .one().n;
  }

  keySpentToday(keyId: string, now: number): number {
    const row = this.sql
      .exec<{ spent: number }>("SELECT spent FROM key_spend WHERE key_id = ? AND day = ?", keyId, utcDay(now))
      .toArray()[0];
    return row?.spent ?? 0;
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
      fair_use: this.fairUse(now),
    };
  }

  /**
   * The rolling 30-day fair-use window (email), counted by the hour (at most 720 rows a counter, however busy the
   * account): what was billed, what was checked, what is still free. A read: hours that left the window are only
   * counted out here, and deleted by `prune`.
   */
  fairUse(now: number): AccountSnapshot["fair_use"] {
    const { billed_answers: billedAnswers, undeliverable_checked: undeliverableChecked } = this.usageSums(now);
    const freeLimit = freeUndeliverableLimit(billedAnswers);
    return {
      billed_answers: billedAnswers,
      undeliverable_checked: undeliverableChecked,
      free_undeliverable_limit: freeLimit,
      free_undeliverable_remaining: Math.max(0, freeLimit - undeliverableChecked),
    };
  }

  private usageSums(now: number): Record<UsageCounter, number> {
    const hour = hourOf(now);
    if (this.usage?.hour === hour) return this.usage.sums;
    const sum = (counter: UsageCounter) =>
      this.sql
        .exec<{ n: number }>(
          "SELECT COALESCE(SUM(n), 0) AS n FROM usage_hours WHERE counter = ? AND hour > ?",
          counter,
          now - FAIR_USE_WINDOW_MS,
        )
        .one().n;
    const sums = { billed_answers: sum("billed_answers"), undeliverable_checked: sum("undeliverable_checked") };
    this.usage = { hour, sums };
    return sums;
  }

  /** Drops fair-use rows that left the window (when usage is written, so reads stay reads). */
  prune(now: number): void {
    this.sql.exec("DELETE FROM usage_hours WHERE hour <= ?", now - FAIR_USE_WINDOW_MS);
  }

  ledger(page: number, perPage: number, now: number): { rows: LedgerRow[]; total: number } {
    this.current(now);
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM ledger").one().n;
    const rows = this.sql
      .exec<Record<keyof LedgerRow, SqlStorageValue>>(
        "SELECT * FROM ledger ORDER BY id DESC LIMIT ? OFFSET ?",
        perPage,
        (page - 1) * perPage,
      )
      .toArray() as unknown as LedgerRow[];
    return { rows, total };
  }

  /** The state with every monthly grant and expiry due by `now` applied (lazily: no cron needed). */
  current(now: number, initialPlan: PlanName = "free"): State {
    let state =
      this.state ??
      (this.sql.exec<Record<keyof State, SqlStorageValue>>("SELECT * FROM state").toArray()[0] as State | undefined);
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
        this.write(
          monthStart(month),
          null,
          "monthly_grant",
          state,
          plan,
          state.pack_credits,
          null,
          `${state.plan} plan`,
        );
        state = { ...state, plan_credits: plan };
      }
    }
    if (
      state.plan_status === "cancelled" &&
      state.cancelled_at !== null &&
      now >= state.cancelled_at + CANCEL_GRACE_MS &&
      state.plan_credits > 0
    ) {
      this.write(
        state.cancelled_at + CANCEL_GRACE_MS,
        null,
        "expiry",
        state,
        0,
        state.pack_credits,
        null,
        "plan cancelled 60 days ago",
      );
      state = { ...state, plan_credits: 0 };
    }
    this.state = state;
    return state;
  }

  private write(
    at: number,
    requestId: string | null,
    kind: LedgerRow["kind"],
    before: State,
    plan: number,
    pack: number,
    keyId: string | null,
    note: string | null,
  ) {
    this.sql.exec("UPDATE state SET plan_credits = ?, pack_credits = ?", plan, pack);
    if (this.state) this.state = { ...this.state, plan_credits: plan, pack_credits: pack };
    this.sql.exec(
      "INSERT INTO ledger (at, request_id, kind, plan_delta, pack_delta, plan_after, pack_after, key_id, note) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      at,
      requestId,
      kind,
      plan - before.plan_credits,
      pack - before.pack_credits,
      plan,
      pack,
      keyId,
      note,
    );
  }
}
