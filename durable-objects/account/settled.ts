import type { SettleResult } from "./types";

/** A settlement is remembered this long, so a settle retried after a lost answer gets the same answer back. */
const SETTLED_RETENTION_MS = 86_400_000;

/** What an operation charged per key is kept this long: as long as the bulk runs that could be run again. */
const OPERATION_RETENTION_MS = 30 * 86_400_000;

/** What a settlement answered, as a retry of it is answered again. */
type SettledAnswer = Pick<SettleResult, "charged" | "credits" | "prepaid">;

/**
 * What makes settling safe to repeat: the operations settled (queued work never charged twice), what each charged
 * per key (a rerun reports the first run's charges), and each reservation's answer for a day (a retried settle).
 */
export class SettledRecords {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS settled_operations (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS operation_charges (id TEXT PRIMARY KEY, at INTEGER NOT NULL, charges TEXT NOT NULL);
    `);
    sql.exec(`
      CREATE TABLE IF NOT EXISTS settled_reservations (id TEXT PRIMARY KEY, at INTEGER NOT NULL, answer TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS settled_reservations_at ON settled_reservations (at);
    `);
  }

  /** Whether `operationId` was settled before; if not, it is now (checked and marked in one synchronous step). */
  settleOnce(operationId: string, now: number): boolean {
    const seen = this.sql.exec("SELECT id FROM settled_operations WHERE id = ?", operationId).toArray().length > 0;
    if (!seen) this.sql.exec("INSERT INTO settled_operations (id, at) VALUES (?, ?)", operationId, now);
    return seen;
  }

  /** Keeps what an operation charged per key (keys charged nothing left out), and forgets runs too old to rerun. */
  keepCharges(operationId: string, charges: Record<string, number>, now: number): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO operation_charges (id, at, charges) VALUES (?, ?, ?)",
      operationId,
      now,
      JSON.stringify(charges),
    );
    // Queued work is never run again once its run is gone (bulk runs are kept 30 days).
    this.sql.exec("DELETE FROM operation_charges WHERE at < ?", now - OPERATION_RETENTION_MS);
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

  remember(reservationId: string, answer: SettledAnswer, now: number): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO settled_reservations (id, at, answer) VALUES (?, ?, ?)",
      reservationId,
      now,
      JSON.stringify(answer),
    );
  }

  /** The answer a reservation's settlement gave, if it was settled within the retention. */
  answerOf(reservationId: string): SettledAnswer | null {
    const row = this.sql
      .exec<{ answer: string }>("SELECT answer FROM settled_reservations WHERE id = ?", reservationId)
      .toArray()[0];
    return row ? (JSON.parse(row.answer) as SettledAnswer) : null;
  }

  /** Forgets settlements too old to be retried. */
  prune(now: number): void {
    this.sql.exec("DELETE FROM settled_reservations WHERE at < ?", now - SETTLED_RETENTION_MS);
  }
}
