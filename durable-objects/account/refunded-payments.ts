import type { Balance } from "./balance";

/** A payment's refund as its processor announces it: the running total, in credits. */
export interface PaymentRefund {
  payment: string;
  total: number;
  /** The total recorded elsewhere before this object kept its own (refunds applied before it did). */
  recorded: number;
  note: string | null;
}

/**
 * How many credits each payment has had refunded so far. Stripe announces a refund's running total (a charge's
 * `amount_refunded`), possibly in several events that race or arrive out of order; keeping the highest total seen per
 * payment lets each event take back only the difference, once.
 */
export class RefundedPayments {
  constructor(
    private readonly sql: SqlStorage,
    private readonly balances: Balance,
  ) {
    sql.exec("CREATE TABLE IF NOT EXISTS refunded_payments (payment TEXT PRIMARY KEY, credits INTEGER NOT NULL)");
  }

  /** Takes back what `refund.total` exceeds the highest total applied before; returns the credits taken (>= 0). */
  apply(refund: PaymentRefund, now: number): { applied: boolean; taken: number } {
    const row = this.sql
      .exec<{ credits: number }>("SELECT credits FROM refunded_payments WHERE payment = ?", refund.payment)
      .toArray()[0];
    const before = Math.max(row?.credits ?? 0, refund.recorded);
    if (refund.total <= before) return { applied: false, taken: 0 };
    this.sql.exec(
      "INSERT INTO refunded_payments (payment, credits) VALUES (?, ?) " +
        "ON CONFLICT (payment) DO UPDATE SET credits = excluded.credits",
      refund.payment,
      refund.total,
    );
    const requestId = `${refund.payment}:refund:${refund.total}`;
    return {
      applied: true,
      taken: this.balances.removePackCredits(refund.total - before, refund.note, requestId, now),
    };
  }
}
