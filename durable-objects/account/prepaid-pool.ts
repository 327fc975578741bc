import type { UnitHold } from "./types";
import { unitOutcome, unitsPerItem } from "./unit-outcome";

/**
 * The account's prepaid units of each product that sells several a credit (IP: five placing lookups), and the unit
 * holds taken on them: the units a hold took from the pool, the units of its credits it lent to the pool, and what
 * closing it comes to. The account's reservations (reservations.ts) hold the credits; this keeps the units.
 */
export class PrepaidPool {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS prepaid (product TEXT PRIMARY KEY, units INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS reservation_units (id TEXT PRIMARY KEY, product TEXT NOT NULL, held INTEGER NOT NULL,
        per_credit INTEGER NOT NULL);
    `);
    // Objects created before this column: nothing lent.
    addColumn(sql, "reservation_units", "lent", "INTEGER NOT NULL DEFAULT 0");
  }

  /** Prepaid units of `product` in the pool now. */
  units(product: string): number {
    return (
      this.sql.exec<{ units: number }>("SELECT units FROM prepaid WHERE product = ?", product).toArray()[0]?.units ?? 0
    );
  }

  /** Records a new hold's units: `held` taken from the pool, `lent` of its credits' units put in it. */
  open(reservationId: string, hold: UnitHold): void {
    this.sql.exec(
      "INSERT INTO reservation_units (id, product, held, per_credit, lent) VALUES (?, ?, ?, ?, ?)",
      reservationId,
      hold.product,
      hold.held,
      hold.perCredit,
      hold.lent,
    );
    this.add(hold.product, hold.lent - hold.held);
  }

  read(reservationId: string): UnitHold | null {
    const row = this.sql
      .exec<{ product: string; held: number; per_credit: number; lent: number }>(
        "SELECT product, held, per_credit, lent FROM reservation_units WHERE id = ?",
        reservationId,
      )
      .toArray()[0];
    return row ? { product: row.product, held: row.held, perCredit: row.per_credit, lent: row.lent } : null;
  }

  /** The hold's units, forgotten: the hold is being closed. */
  take(reservationId: string): UnitHold | null {
    const row = this.sql
      .exec<{ product: string; held: number; per_credit: number; lent: number }>(
        "DELETE FROM reservation_units WHERE id = ? RETURNING product, held, per_credit, lent",
        reservationId,
      )
      .toArray()[0];
    return row ? { product: row.product, held: row.held, perCredit: row.per_credit, lent: row.lent } : null;
  }

  /**
   * Closes a unit hold of `credits` credits whose answers used `units`, item by item. `asAnswered` (an answer that
   * reported `unitOutcome` before settling): exactly that outcome, with no give-back step, when the hold alone decides
   * it. Otherwise units used come from the prepaid units the hold took, then from its credits; what it did not use
   * goes back to the pool. Then every credit of the hold the pool can give back whole is not bought after all (it may
   * have been lent, or others may have left units since), and the rest are charged: the pool always holds exactly the
   * units of charged credits nobody has used, plus those lent by credits still held. Item by item: units covered by
   * prepaid ones report 0, the item that opens a charged credit reports 1 and the next `perCredit - 1` report 0. A
   * credit whose lent units others used is charged even when this hold used none of it: those answers are what it
   * pays for.
   */
  close(hold: UnitHold, units: number[], credits: number, asAnswered = false): { perItem: number[]; charge: number } {
    const outcome = asAnswered ? unitOutcome({ ...hold, credits }, units) : null;
    if (outcome) {
      this.add(hold.product, outcome.back);
      return { perItem: outcome.perItem, charge: outcome.charge };
    }
    const used = units.reduce((a, b) => a + Math.max(0, b), 0);
    const fromHeld = Math.min(hold.held, used);
    const kept = credits * hold.perCredit - hold.lent;
    const fromCredits = Math.min(used - fromHeld, kept);
    const pool = this.units(hold.product) + hold.held - fromHeld + kept - fromCredits;
    const refunded = Math.min(credits, Math.floor(pool / hold.perCredit));
    const charge = credits - refunded;
    this.add(hold.product, pool - refunded * hold.perCredit - this.units(hold.product));
    const covered = fromHeld + Math.max(0, fromCredits - charge * hold.perCredit);
    return { perItem: unitsPerItem(units, covered, charge, hold.perCredit), charge };
  }

  /** Moves the pool of `product` by `delta` units (a refund of a failed request puts used units back). */
  add(product: string, delta: number) {
    if (delta === 0) return;
    this.sql.exec(
      "INSERT INTO prepaid (product, units) VALUES (?, ?) ON CONFLICT (product) DO UPDATE SET units = units + " +
        "excluded.units",
      product,
      delta,
    );
  }
}

/** Adds a column to a table of an object created before it (SQLite has no ADD COLUMN IF NOT EXISTS). */
export function addColumn(sql: SqlStorage, table: string, column: string, type: string) {
  if (sql.exec(`SELECT 1 FROM pragma_table_info('${table}') WHERE name = ?`, column).toArray().length) return;
  sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}
