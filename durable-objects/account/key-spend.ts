import { utcDay } from "../../src/engines/credits/plans";

/**
 * What each key was charged per UTC day, for its daily credit cap: a charge adds to its day, a refund of a failed
 * request takes back from the day it was charged. Its table is the balance's (balance.ts makes it).
 */
export class KeySpend {
  constructor(private readonly sql: SqlStorage) {}

  /** Adds `credits` to what `keyId` spent on the UTC day of `at`. */
  add(keyId: string, at: number, credits: number): void {
    this.sql.exec(
      "INSERT INTO key_spend (key_id, day, spent) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET spent = " +
        "spent + excluded.spent",
      keyId,
      utcDay(at),
      credits,
    );
  }

  /** Takes `credits` back from what `keyId` spent on the UTC day of `at` (a refund), never below 0. */
  takeBack(keyId: string, at: number, credits: number): void {
    this.sql.exec(
      "UPDATE key_spend SET spent = MAX(0, spent - ?) WHERE key_id = ? AND day = ?",
      credits,
      keyId,
      utcDay(at),
    );
  }

  today(keyId: string, now: number): number {
    const row = this.sql
      .exec<{ spent: number }>("SELECT spent FROM key_spend WHERE key_id = ? AND day = ?", keyId, utcDay(now))
      .toArray()[0];
    return row?.spent ?? 0;
  }
}
