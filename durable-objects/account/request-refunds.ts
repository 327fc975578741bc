import type { Balance } from "./balance";
import type { PrepaidPool } from "./prepaid-pool";
import type { RequestRefund, UnitHold } from "./types";

/** A settled unit hold is kept this long for a refund of its request (as long as a settle may be retried). */
const UNITS_RETENTION_MS = 86_400_000;

/** A request refunded is remembered this long, so a refund retried (or sent twice) gives back once. */
const REFUNDED_RETENTION_MS = 30 * 86_400_000;

/** A charge row of the request, as the ledger wrote it. */
interface ChargeRow {
  plan_delta: number;
  pack_delta: number;
  key_id: string | null;
  at: number;
  product: string | null;
}

/**
 * Refunds of requests that ended in an error after their walk settled (docs/billing.md, "A request that fails after
 * settling"): everything the request's settlements charged comes back, the charge rows read from the ledger under the
 * request's id, the prepaid units its answers used from what each settled unit hold kept here. Once per request.
 */
export class RequestRefunds {
  constructor(
    private readonly sql: SqlStorage,
    private readonly balance: Balance,
    private readonly pool: PrepaidPool,
  ) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS settled_units (request_id TEXT NOT NULL, product TEXT NOT NULL, used INTEGER NOT NULL,
        per_credit INTEGER NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS settled_units_request ON settled_units (request_id);
      CREATE INDEX IF NOT EXISTS settled_units_at ON settled_units (at);
      CREATE TABLE IF NOT EXISTS refunded_requests (request_id TEXT PRIMARY KEY, at INTEGER NOT NULL);
    `);
  }

  /** A unit hold of `requestId` was settled: its answers used `used` units (a refund gives them back). */
  keepUnits(requestId: string, hold: UnitHold, used: number, now: number): void {
    this.sql.exec(
      "INSERT INTO settled_units (request_id, product, used, per_credit, at) VALUES (?, ?, ?, ?, ?)",
      requestId,
      hold.product,
      used,
      hold.perCredit,
      now,
    );
  }

  /**
   * Gives back what `requestId`'s settlements took, in one synchronous step: each charge's credits to the buckets it
   * came from and to its key's spend of the day it was charged, in one `refund` row. A product that sells several
   * units a credit gets its used units back in the pool first, and a credit back only where the pool can return it
   * whole (the rule of settling, reservations.ts): units of it that requests beside it used stay paid for. `since`:
   * the request's charges were written after it (bounds the ledger's read to its index on time).
   */
  refund(requestId: string, { now, since }: { now: number; since: number }): RequestRefund {
    const seen = this.sql.exec("SELECT 1 FROM refunded_requests WHERE request_id = ?", requestId).toArray();
    if (seen.length) return { applied: false, credits: 0, units: 0 };
    const charges = this.sql
      .exec<ChargeRow & Record<string, SqlStorageValue>>(
        "SELECT plan_delta, pack_delta, key_id, at, product FROM ledger WHERE at >= ? AND request_id = ? AND " +
          "kind = 'charge' ORDER BY id",
        since,
        requestId,
      )
      .toArray();
    const kept = this.sql.exec("SELECT 1 FROM settled_units WHERE request_id = ? LIMIT 1", requestId).toArray();
    // Nothing was settled for it (refused, or failed before its walk settled): nothing to give back or to remember.
    if (!charges.length && !kept.length) return { applied: false, credits: 0, units: 0 };
    this.sql.exec("INSERT INTO refunded_requests (request_id, at) VALUES (?, ?)", requestId, now);
    const { left, units } = this.unitsBack(requestId, charges);
    let [plan, pack] = [0, 0];
    for (const charge of charges) {
      const charged = -(charge.plan_delta + charge.pack_delta);
      const limit = charge.product === null ? undefined : left.get(charge.product);
      const back = Math.min(charged, limit ?? charged);
      if (limit !== undefined) left.set(charge.product!, limit - back);
      const fromPack = Math.min(back, -charge.pack_delta);
      [plan, pack] = [plan + back - fromPack, pack + fromPack];
      if (charge.key_id && back > 0) this.balance.keySpend.takeBack(charge.key_id, charge.at, back);
    }
    const [first, before] = [charges[0], this.balance.current(now)];
    if (first && plan + pack > 0)
      this.balance.write({
        at: now,
        requestId,
        kind: "refund",
        before,
        plan: before.plan_credits + plan,
        pack: before.pack_credits + pack,
        keyId: first.key_id,
        product: first.product,
      });
    return { applied: true, credits: plan + pack, units };
  }

  /**
   * Puts the units the request's unit holds used back in their pools, then takes out the units of every credit the
   * pool can return whole (at most what the request was charged for the product): those credits, by product.
   */
  private unitsBack(requestId: string, charges: ChargeRow[]) {
    const kept = this.sql
      .exec<{ product: string; used: number; per_credit: number }>(
        "DELETE FROM settled_units WHERE request_id = ? RETURNING product, used, per_credit",
        requestId,
      )
      .toArray();
    const left = new Map<string, number>();
    let units = 0;
    for (const product of new Set(kept.map((k) => k.product))) {
      const rows = kept.filter((k) => k.product === product);
      const used = rows.reduce((sum, k) => sum + k.used, 0);
      const perCredit = rows[0]!.per_credit;
      units += used;
      this.pool.add(product, used);
      const charged = charges
        .filter((c) => c.product === product)
        .reduce((sum, c) => sum - c.plan_delta - c.pack_delta, 0);
      const back = Math.min(charged, Math.floor(this.pool.units(product) / perCredit));
      this.pool.add(product, -back * perCredit);
      left.set(product, back);
    }
    return { left, units };
  }

  /** Forgets settled unit holds too old to be refunded, and refunds too old to be retried. */
  prune(now: number): void {
    this.sql.exec("DELETE FROM settled_units WHERE at < ?", now - UNITS_RETENTION_MS);
    this.sql.exec("DELETE FROM refunded_requests WHERE at < ?", now - REFUNDED_RETENTION_MS);
  }
}
