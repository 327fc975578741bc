import { FAIR_USE_WINDOW_MS, freeUndeliverableLimit } from "../../src/engines/credits/plans";
import type { AccountSnapshot, UsageCounter } from "./types";

const HOUR_MS = 3_600_000;
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * The rolling 30-day fair-use window (email), counted by the hour (at most 720 rows a counter, however busy the
 * account): what was billed, what was checked, what is still free. Counted apart from the balance: it moves no credit.
 */
export class FairUseWindow {
  /** The sums as last read or written, kept for the hour they were counted in: the hot path's reads cost no query. */
  private cached: { hour: number; sums: Record<UsageCounter, number> } | null = null;
  /** The hour whose expired rows were last deleted by this instance. */
  private prunedHour: number | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS usage_hours (hour INTEGER NOT NULL, counter TEXT NOT NULL, n INTEGER NOT NULL,
      PRIMARY KEY (hour, counter))`);
    // Objects that kept a row per settlement: folded into hours once (a busy account's window read summed them all).
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage'").toArray().length) {
      sql.exec(`INSERT INTO usage_hours (hour, counter, n) SELECT (at / ${HOUR_MS}) * ${HOUR_MS}, counter, SUM(n)
        FROM usage GROUP BY 1, 2
        ON CONFLICT (hour, counter) DO UPDATE SET n = n + excluded.n`);
      sql.exec("DROP TABLE usage");
    }
  }

  count(usage: Partial<Record<UsageCounter, number>>, now: number): void {
    if (!Object.values(usage).some(Boolean)) return;
    const hour = hourOf(now);
    // Hours that left the window are deleted once an hour, not on every settle: reads never count them anyway.
    if (this.prunedHour !== hour) this.prune(now), (this.prunedHour = hour);
    // The row counted into is the current hour's, inside the window: sums read this hour move by exactly `n`.
    const sums = this.cached?.hour === hour ? this.cached.sums : null;
    if (!sums) this.cached = null;
    for (const [counter, n] of Object.entries(usage) as [UsageCounter, number][]) {
      if (!n) continue;
      this.sql.exec(
        "INSERT INTO usage_hours (hour, counter, n) VALUES (?, ?, ?) ON CONFLICT (hour, counter) DO UPDATE SET n = " +
          "n + excluded.n",
        hour,
        counter,
        n,
      );
      if (sums && counter in sums) sums[counter] += n;
    }
  }

  /** The window as `now` sees it. A read: hours that left the window are only counted out here, deleted by `prune`. */
  read(now: number): AccountSnapshot["fair_use"] {
    const { billed_answers: billedAnswers, undeliverable_checked: undeliverableChecked } = this.sums(now);
    const freeLimit = freeUndeliverableLimit(billedAnswers);
    return {
      billed_answers: billedAnswers,
      undeliverable_checked: undeliverableChecked,
      free_undeliverable_limit: freeLimit,
      free_undeliverable_remaining: Math.max(0, freeLimit - undeliverableChecked),
    };
  }

  private sums(now: number): Record<UsageCounter, number> {
    const hour = hourOf(now);
    if (this.cached?.hour === hour) return this.cached.sums;
    const sum = (counter: UsageCounter) =>
      this.sql
        .exec<{ n: number }>(
          "SELECT COALESCE(SUM(n), 0) AS n FROM usage_hours WHERE counter = ? AND hour > ?",
          counter,
          now - FAIR_USE_WINDOW_MS,
        )
        .one().n;
    const sums = { billed_answers: sum("billed_answers"), undeliverable_checked: sum("undeliverable_checked") };
    this.cached = { hour, sums };
    return sums;
  }

  /** Drops rows that left the window (when usage is written, so reads stay reads). */
  private prune(now: number): void {
    this.sql.exec("DELETE FROM usage_hours WHERE hour <= ?", now - FAIR_USE_WINDOW_MS);
  }
}
