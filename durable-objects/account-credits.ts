import { DurableObject } from "cloudflare:workers";
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
} from "../src/engines/credits/plans";
import { ClaimBook, type Claims } from "./claims";

export type { Claims };

/** A reservation not settled within this time is released by the alarm (its Worker died mid-request). */
const RESERVATION_TTL_MS = 15 * 60 * 1000;
/** What an operation charged per key is kept this long: as long as the bulk runs that could be run again. */
const OPERATION_RETENTION_MS = 30 * 86_400_000;


export type UsageCounter = "billed_answers" | "undeliverable_checked";

export interface ReserveRequest {
  requestId: string;
  /** Units wanted (credits, unless `units` says a credit buys several). */
  amount: number;
  /** Fewest units worth reserving (a batch takes what it can get); defaults to `amount`. */
  minimum?: number;
  /**
   * A product whose credit buys `perCredit` units (IP: five placing lookups). Units bought and not yet used are the
   * account's prepaid units of that product; a reservation holds them like credits, so they are exact under concurrency.
   */
  units?: { product: string; perCredit: number };
  keyId?: string | null;
  dailyCreditCap?: number | null;
  /**
   * What the units pay for, in order: (product, key) pairs this reservation claims so concurrent requests for the same
   * value wait for its answer instead of paying again. When given, `amount` is the units of the keys nobody else holds.
   */
  claims?: Claims;
  /** Work held while in flight (a remote walk's wave): take at most half of what is available, leaving room for others. */
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
  now?: number;
}

interface State {
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
  kind: "monthly_grant" | "plan_credit" | "pack_credit" | "charge" | "expiry";
  plan_delta: number;
  pack_delta: number;
  plan_after: number;
  pack_after: number;
  key_id: string | null;
  note: string | null;
}

/**
 * One account's money: plan and pack balances, reservations, the ledger, per-key daily spend and the rolling fair-use
 * counters. Every method runs without awaiting, so each is atomic; nothing else writes a balance.
 */
export class AccountCredits extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.claims = new ClaimBook(this.sql);
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL, plan_status TEXT NOT NULL,
        plan_credits INTEGER NOT NULL, pack_credits INTEGER NOT NULL, cancelled_at INTEGER, granted_month INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, key_id TEXT,
        amount INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, request_id TEXT,
        kind TEXT NOT NULL, plan_delta INTEGER NOT NULL, pack_delta INTEGER NOT NULL, plan_after INTEGER NOT NULL,
        pack_after INTEGER NOT NULL, key_id TEXT, note TEXT);
      CREATE TABLE IF NOT EXISTS key_spend (key_id TEXT NOT NULL, day TEXT NOT NULL, spent INTEGER NOT NULL,
        PRIMARY KEY (key_id, day));
      CREATE TABLE IF NOT EXISTS usage (at INTEGER NOT NULL, counter TEXT NOT NULL, n INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS usage_at ON usage (at);
      CREATE TABLE IF NOT EXISTS settled_operations (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS operation_charges (id TEXT PRIMARY KEY, at INTEGER NOT NULL, charges TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS prepaid (product TEXT PRIMARY KEY, units INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS reservation_units (id TEXT PRIMARY KEY, product TEXT NOT NULL, held INTEGER NOT NULL,
        per_credit INTEGER NOT NULL);
    `);
    // Objects created before holds lent units: the column defaults to nothing lent.
    if (!this.sql.exec("SELECT 1 FROM pragma_table_info('reservation_units') WHERE name = 'lent'").toArray().length) {
      this.sql.exec("ALTER TABLE reservation_units ADD COLUMN lent INTEGER NOT NULL DEFAULT 0");
    }
  }

  private readonly claims: ClaimBook;

  /** Sets the plan (creating the balance on first use) or cancels it; plan credits then expire after the grace period. */
  setPlan(plan: PlanName | "cancelled", now = Date.now()): AccountSnapshot {
    if (plan === "cancelled") {
      const state = this.current(now);
      if (state.plan_status === "active") this.sql.exec("UPDATE state SET plan_status = 'cancelled', cancelled_at = ?", now);
    } else {
      this.current(now, plan);
      this.sql.exec("UPDATE state SET plan = ?, plan_status = 'active', cancelled_at = NULL", plan);
    }
    return this.snapshot(now);
  }

  /** Adds operator-granted plan credits or purchased pack credits. */
  addCredits(bucket: "plan" | "pack", amount: number, note: string | null, requestId: string | null, now = Date.now()) {
    const state = this.current(now);
    const plan = state.plan_credits + (bucket === "plan" ? amount : 0);
    const pack = state.pack_credits + (bucket === "pack" ? amount : 0);
    this.write(now, requestId, bucket === "plan" ? "plan_credit" : "pack_credit", state, plan, pack, null, note);
    return this.snapshot(now);
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const result = this.reserveNow(request);
    if (result.ok && (await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm((request.now ?? Date.now()) + RESERVATION_TTL_MS);
    }
    return result;
  }

  private reserveNow(request: ReserveRequest): ReserveResult {
    const now = request.now ?? Date.now();
    const { busy, open } = this.claims.sort(request.claims, null, request.requestId);
    const amount = request.claims ? open.reduce((sum, c) => sum + c.units, 0) : request.amount;
    const perCredit = request.units?.perCredit ?? 1;
    const held = request.units ? Math.min(this.prepaidUnits(request.units.product), amount) : 0;
    const wanted = Math.ceil((amount - held) / perCredit);
    const minimum = Math.max(0, Math.ceil((Math.min(request.minimum ?? amount, amount) - held) / perCredit));
    const grant = this.grant(now, { wanted, minimum, share: request.share === true, keyId: request.keyId ?? null, cap: request.dailyCreditCap ?? null, own: 0 });
    if (!grant.ok) return { ok: false, reason: grant.reason, available: grant.available, busy };
    if (grant.granted + held <= 0 && amount > 0) return { ok: false, reason: "insufficient_credits", available: grant.available, busy };
    const reservationId = crypto.randomUUID();
    this.sql.exec(
      "INSERT INTO reservations (id, request_id, key_id, amount, created_at) VALUES (?, ?, ?, ?, ?)",
      reservationId,
      request.requestId,
      request.keyId ?? null,
      grant.granted,
      now,
    );
    // The units of the credits bought beyond what this hold asked for are lent to the pool at once, so holds in flight
    // beside it share the credit instead of each needing a whole free one; settling decides who pays for it.
    const bought = grant.granted * perCredit;
    const lent = request.units ? Math.max(0, bought - (amount - held)) : 0;
    if (request.units) {
      this.sql.exec("INSERT INTO reservation_units (id, product, held, per_credit, lent) VALUES (?, ?, ?, ?, ?)", reservationId, request.units.product, held, perCredit, lent);
      this.addPrepaid(request.units.product, lent - held);
    }
    const grantedUnits = held + bought - lent;
    const claimed = this.claims.take(request.claims?.product, open, grantedUnits, reservationId);
    const fairUseRemaining = this.fairUse(now).free_undeliverable_remaining;
    return { ok: true, reservationId, granted: grant.granted, grantedUnits, limitedBy: grant.limitedBy, fairUseRemaining, busy, claimed };
  }

  /**
   * The next wave of a walk on the same reservation (one reservation, so one ledger row and one operation id however
   * many waves): the hold becomes the `spent` units plus what the wave may use, so between waves it shrinks back to what
   * answers used. A wave that cannot be paid leaves the hold at `spent`.
   */
  resize(reservationId: string, request: ResizeRequest): ReserveResult {
    const now = request.now ?? Date.now();
    const reservation = this.sql
      .exec<{ key_id: string | null; amount: number; request_id: string }>("SELECT key_id, amount, request_id FROM reservations WHERE id = ?", reservationId)
      .toArray()[0];
    const { busy, open } = this.claims.sort(request.claims, reservationId, reservation?.request_id ?? null);
    if (!reservation) return { ok: false, reason: "insufficient_credits", available: 0, busy };
    const unitHold = this.readUnitHold(reservationId) ?? { product: "", held: 0, perCredit: 1, lent: 0 };
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
    return { ok: true, reservationId, granted: grant.granted, grantedUnits, limitedBy: grant.limitedBy, fairUseRemaining: this.fairUse(now).free_undeliverable_remaining, busy, claimed };
  }

  /**
   * How many credits a hold may take: what is available (plus what `own`, the reservation being resized, already
   * holds), within the key's daily cap, and with `share` at most half of it (never less than the minimum), so work in
   * flight never shuts out a concurrent request. `limitedBy` names what cut the grant short, if anything did.
   */
  private grant(now: number, g: { wanted: number; minimum: number; share: boolean; keyId: string | null; cap: number | null; own: number; spent?: number }):
    | { ok: true; granted: number; limitedBy: "insufficient_credits" | "key_spend_cap" | null; available: number }
    | { ok: false; reason: "insufficient_credits" | "key_spend_cap"; available: number } {
    const available = this.available(this.current(now)) + g.own - (g.spent ?? 0);
    let granted = Math.min(g.wanted, available);
    let limitedBy: "insufficient_credits" | "key_spend_cap" | null = granted < g.wanted ? "insufficient_credits" : null;
    if (g.keyId && g.cap != null) {
      const capLeft = Math.max(0, g.cap - this.keySpentToday(g.keyId, now) - this.keyHeld(g.keyId) + g.own - (g.spent ?? 0));
      if (capLeft < g.minimum) return { ok: false, reason: "key_spend_cap", available };
      if (capLeft < granted) {
        granted = capLeft;
        limitedBy = "key_spend_cap";
      }
    }
    if (granted < g.minimum) return { ok: false, reason: "insufficient_credits", available };
    if (g.share) granted = Math.min(granted, Math.max(g.minimum, Math.ceil(available / 2)));
    return { ok: true, granted, limitedBy, available };
  }

  /** Resolves once none of `keys` is claimed by a walk in flight, or after `timeoutMs`; returns those still claimed. */
  awaitClaims(product: string, keys: string[], timeoutMs: number): Promise<string[]> {
    return this.claims.wait(product, keys, timeoutMs);
  }

  /**
   * Charges what the answer cost (at most what was reserved) and frees the rest. Settling twice charges once: the
   * reservation is gone after the first call.
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
      remaining: this.available(this.current(now)),
      prepaid: null,
      alreadySettled,
      firstCharges: settlement.operationId ? this.operationCharges(settlement.operationId) : null,
    });
    if (!reservation) return nothing(true);
    const unitHold = this.takeUnitHold(reservationId);
    this.sql.exec("DELETE FROM reservations WHERE id = ?", reservationId);
    this.claims.drop(reservationId);
    if (settlement.operationId) {
      const seen = this.sql.exec("SELECT id FROM settled_operations WHERE id = ?", settlement.operationId).toArray().length > 0;
      // Work settled before uses nothing now; a credit whose lent units others used is still paid.
      if (unitHold && seen) this.charge(now, reservation, this.closeUnitHold(unitHold, [], reservation.amount).charge);
      if (seen) return nothing(true);
      this.sql.exec("INSERT INTO settled_operations (id, at) VALUES (?, ?)", settlement.operationId, now);
    }
    const closed = unitHold ? this.closeUnitHold(unitHold, units, reservation.amount) : null;
    const perItem = closed ? closed.perItem : units.map((n) => Math.max(0, n));
    const charged = this.charge(now, reservation, closed ? closed.charge : Math.min(perItem.reduce((a, b) => a + b, 0), reservation.amount));
    if (settlement.operationId && settlement.keys) {
      const charges = Object.fromEntries(settlement.keys.flatMap((key, i) => (perItem[i] ? [[key, perItem[i]]] : [])));
      this.sql.exec("INSERT OR REPLACE INTO operation_charges (id, at, charges) VALUES (?, ?, ?)", settlement.operationId, now, JSON.stringify(charges));
      // Queued work is never run again once its run is gone (bulk runs are kept 30 days).
      this.sql.exec("DELETE FROM operation_charges WHERE at < ?", now - OPERATION_RETENTION_MS);
    }
    for (const [counter, n] of Object.entries(settlement.usage ?? {})) {
      if (n) this.sql.exec("INSERT INTO usage (at, counter, n) VALUES (?, ?, ?)", now, counter, n);
    }
    const prepaid = unitHold ? this.prepaidUnits(unitHold.product) : null;
    return { charged, credits: perItem, remaining: this.available(this.current(now)), prepaid, alreadySettled: false, firstCharges: null };
  }

  /**
   * What a settled operation charged, by key (keys charged nothing are absent); null when it was never settled. A
   * rerun of queued work (a bulk chunk after a crash) reports these, since its own answers are now free repeats.
   */
  operationCharges(operationId: string): Record<string, number> | null {
    const row = this.sql.exec<{ charges: string }>("SELECT charges FROM operation_charges WHERE id = ?", operationId).toArray()[0];
    if (row) return JSON.parse(row.charges) as Record<string, number>;
    return this.sql.exec("SELECT 1 FROM settled_operations WHERE id = ?", operationId).toArray().length ? {} : null;
  }

  /** Charges `credits` (plan credits first) against the reservation's key and writes the ledger row. */
  private charge(now: number, reservation: { request_id: string; key_id: string | null }, credits: number): number {
    const state = this.current(now);
    const { fromPlan, fromPack } = splitCharge(credits, state.plan_credits, state.pack_credits);
    const charged = fromPlan + fromPack;
    if (charged <= 0) return 0;
    this.write(now, reservation.request_id, "charge", state, state.plan_credits - fromPlan, state.pack_credits - fromPack, reservation.key_id, null);
    if (reservation.key_id) {
      this.sql.exec(
        "INSERT INTO key_spend (key_id, day, spent) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET spent = spent + excluded.spent",
        reservation.key_id,
        utcDay(now),
        charged,
      );
    }
    return charged;
  }

  /**
   * Closes a unit hold: `credits` credits were held, `hold.lent` of their units lent to the pool when reserved. Units
   * used come from the prepaid units the hold took, then from its credits; what it did not use goes back to the pool.
   * Then every credit of the hold the pool can give back whole is not bought after all (it may have been lent, or others
   * may have left units since), and the rest are charged: the pool always holds exactly the units of charged credits
   * nobody has used, plus those lent by credits still held. Item by item: units covered by prepaid ones report 0, the
   * item that opens a charged credit reports 1 and the next `perCredit - 1` report 0. A credit whose lent units others
   * used is charged even when this hold used none of it: those answers are what it pays for.
   */
  private closeUnitHold(hold: UnitHold, units: number[], credits: number): { perItem: number[]; charge: number } {
    const used = units.reduce((a, b) => a + Math.max(0, b), 0);
    const fromHeld = Math.min(hold.held, used);
    const kept = credits * hold.perCredit - hold.lent;
    const fromCredits = Math.min(used - fromHeld, kept);
    const pool = this.prepaidUnits(hold.product) + hold.held - fromHeld + kept - fromCredits;
    const refunded = Math.min(credits, Math.floor(pool / hold.perCredit));
    const charge = credits - refunded;
    this.addPrepaid(hold.product, pool - refunded * hold.perCredit - this.prepaidUnits(hold.product));
    let covered = fromHeld + Math.max(0, fromCredits - charge * hold.perCredit);
    let open = 0;
    let opening = charge;
    const perItem = units.map((n) => {
      let bought = 0;
      for (let u = 0; u < n; u++) {
        if (covered > 0) covered--;
        else if (open > 0) open--;
        else if (opening > 0) (opening--, bought++, (open = hold.perCredit - 1));
      }
      return bought;
    });
    return { perItem, charge };
  }

  private readUnitHold(reservationId: string): UnitHold | null {
    const row = this.sql
      .exec<{ product: string; held: number; per_credit: number; lent: number }>("SELECT product, held, per_credit, lent FROM reservation_units WHERE id = ?", reservationId)
      .toArray()[0];
    return row ? { product: row.product, held: row.held, perCredit: row.per_credit, lent: row.lent } : null;
  }

  private takeUnitHold(reservationId: string): UnitHold | null {
    const hold = this.readUnitHold(reservationId);
    if (hold) this.sql.exec("DELETE FROM reservation_units WHERE id = ?", reservationId);
    return hold;
  }

  private prepaidUnits(product: string): number {
    return this.sql.exec<{ units: number }>("SELECT units FROM prepaid WHERE product = ?", product).toArray()[0]?.units ?? 0;
  }

  private addPrepaid(product: string, delta: number) {
    if (delta === 0) return;
    this.sql.exec(
      "INSERT INTO prepaid (product, units) VALUES (?, ?) ON CONFLICT (product) DO UPDATE SET units = units + excluded.units",
      product,
      delta,
    );
  }

  release(reservationId: string) {
    return this.settle(reservationId, { credits: 0 });
  }

  /** Credits available now and, for a product that sells several units a credit, its prepaid units: one read. */
  balance(product: string | null, now = Date.now()): { available: number; prepaid: number | null } {
    return { available: this.available(this.current(now)), prepaid: product === null ? null : this.prepaidUnits(product) };
  }

  snapshot(now = Date.now()): AccountSnapshot {
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

  /** The rolling 30-day fair-use window (email): what was billed, what was checked, what is still free. */
  private fairUse(now: number): AccountSnapshot["fair_use"] {
    this.sql.exec("DELETE FROM usage WHERE at <= ?", now - FAIR_USE_WINDOW_MS);
    const usage = (counter: UsageCounter) =>
      this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(n), 0) AS n FROM usage WHERE counter = ?", counter).one().n;
    const billedAnswers = usage("billed_answers");
    const undeliverableChecked = usage("undeliverable_checked");
    const freeLimit = freeUndeliverableLimit(billedAnswers);
    return {
      billed_answers: billedAnswers,
      undeliverable_checked: undeliverableChecked,
      free_undeliverable_limit: freeLimit,
      free_undeliverable_remaining: Math.max(0, freeLimit - undeliverableChecked),
    };
  }

  ledger(page: number, perPage: number): { rows: LedgerRow[]; total: number } {
    this.current(Date.now());
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

  /** Releases reservations whose Worker never settled them. */
  override async alarm() {
    const now = Date.now();
    const expired = this.sql.exec<{ id: string }>("SELECT id FROM reservations WHERE created_at <= ?", now - RESERVATION_TTL_MS).toArray();
    // Released as a failed request is: nothing used, lent units taken back (or their credit paid when others used them).
    for (const { id } of expired) this.settle(id, { now });
    const oldest = this.sql.exec<{ at: number | null }>("SELECT MIN(created_at) AS at FROM reservations").one().at;
    if (oldest !== null) await this.ctx.storage.setAlarm(oldest + RESERVATION_TTL_MS);
  }

  /** The state with every monthly grant and expiry due by `now` applied (lazily: no cron needed). */
  private current(now: number, initialPlan: PlanName = "free"): State {
    let state = this.sql.exec<Record<keyof State, SqlStorageValue>>("SELECT * FROM state").toArray()[0] as State | undefined;
    if (!state) {
      const fresh: State = { plan: initialPlan, plan_status: "active", plan_credits: 0, pack_credits: 0, cancelled_at: null, granted_month: monthIndex(now) - 1 };
      this.sql.exec(
        "INSERT INTO state (id, plan, plan_status, plan_credits, pack_credits, cancelled_at, granted_month) VALUES (1, ?, 'active', 0, 0, NULL, ?)",
        fresh.plan,
        fresh.granted_month,
      );
      state = fresh;
    }
    const month = monthIndex(now);
    if (state.plan_status === "active" && state.granted_month < month) {
      const plan = applyMonthlyGrants(state.plan_credits, PLANS[state.plan].monthlyCredits, month - state.granted_month);
      this.sql.exec("UPDATE state SET granted_month = ?", month);
      state = { ...state, granted_month: month };
      if (plan !== state.plan_credits) {
        this.write(monthStart(month), null, "monthly_grant", state, plan, state.pack_credits, null, `${state.plan} plan`);
        state = { ...state, plan_credits: plan };
      }
    }
    if (state.plan_status === "cancelled" && state.cancelled_at !== null && now >= state.cancelled_at + CANCEL_GRACE_MS && state.plan_credits > 0) {
      this.write(state.cancelled_at + CANCEL_GRACE_MS, null, "expiry", state, 0, state.pack_credits, null, "plan cancelled 60 days ago");
      state = { ...state, plan_credits: 0 };
    }
    return state;
  }

  private write(at: number, requestId: string | null, kind: LedgerRow["kind"], before: State, plan: number, pack: number, keyId: string | null, note: string | null) {
    this.sql.exec("UPDATE state SET plan_credits = ?, pack_credits = ?", plan, pack);
    this.sql.exec(
      "INSERT INTO ledger (at, request_id, kind, plan_delta, pack_delta, plan_after, pack_after, key_id, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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

  private held(): number {
    return this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations").one().n;
  }

  private keyHeld(keyId: string): number {
    return this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM reservations WHERE key_id = ?", keyId).one().n;
  }

  private keySpentToday(keyId: string, now: number): number {
    const row = this.sql.exec<{ spent: number }>("SELECT spent FROM key_spend WHERE key_id = ? AND day = ?", keyId, utcDay(now)).toArray()[0];
    return row?.spent ?? 0;
  }

  private available(state: State): number {
    return Math.max(0, state.plan_credits + state.pack_credits - this.held());
  }
}

interface UnitHold {
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
};
