/** What a reservation pays for, in order: (product, key) pairs with the units each may cost. */
export interface Claims {
  product: string;
  /**
   * `seen`: when the repeat marker the walk read for the key was started (0: none). A newer marker means another walk
   * answered the value since that read, so the key is busy (its answer is there to read) rather than paid again.
   */
  items: { key: string; units: number; seen?: number }[];
}

/** The keys among `items` whose live repeat marker is newer than the one the caller saw. */
export type AnsweredSince = (product: string, items: Claims["items"]) => Set<string>;

/** How often a waiter looks at the claims again when no release woke it. */
const POLL_MS = 250;
/** Keys per statement: Durable Object SQL binds at most 100 parameters. */
const KEYS_PER_STATEMENT = 90;

const slices = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
const marks = (n: number) => Array(n).fill("?").join(", ");

/**
 * In-flight claims of one account, kept in the account's credits object beside the reservations they belong to: a
 * (product, key) claimed by a live reservation is being answered now, so a concurrent walk for the same value waits for
 * that answer (then a free 7-day repeat) instead of paying for its own. A claim ends with its reservation (settled,
 * released or expired by the alarm).
 */
export class ClaimBook {
  /** Waiters, woken whenever a reservation's claims go. */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly answeredSince: AnsweredSince = () => new Set(),
  ) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS claims (product TEXT NOT NULL, key TEXT NOT NULL, reservation_id TEXT NOT NULL,
        PRIMARY KEY (product, key));
      CREATE INDEX IF NOT EXISTS claims_reservation ON claims (reservation_id);
    `);
  }

  /**
   * Splits claims into keys another request holds (busy) and the rest (open), in order. A claim of an earlier
   * reservation with the same request id is this work's own (queued work run again after its consumer died): taken
   * over.
   */
  sort(claims: Claims | undefined, own: string | null, requestId: string | null) {
    const items = claims?.items ?? [];
    const holders = new Map<string, { id: string; request_id: string | null }>();
    for (const part of slices(items, KEYS_PER_STATEMENT)) {
      const rows = this.sql.exec<{ key: string; id: string; request_id: string | null }>(
        `SELECT c.key, c.reservation_id AS id, r.request_id FROM claims c LEFT JOIN reservations r
          ON r.id = c.reservation_id
         WHERE c.product = ? AND c.key IN (${marks(part.length)})`,
        claims!.product,
        ...part.map((item) => item.key),
      );
      for (const row of rows) holders.set(row.key, row);
    }
    const busy: string[] = [];
    const open: Claims["items"] = [];
    // A value answered between the walk's read of its repeats and this hold is not paid twice: the walk reads it next.
    const answered =
      claims && items.some((i) => i.seen !== undefined) ? this.answeredSince(claims.product, items) : null;
    for (const item of items) {
      const holder = holders.get(item.key);
      if (answered?.has(item.key)) busy.push(item.key);
      else if (holder && holder.id !== own && holder.request_id !== requestId) busy.push(item.key);
      else open.push(item);
    }
    return { busy, open };
  }

  /** Claims the first keys of `open` that `units` pay for, for `reservationId`; returns them. */
  take(product: string | undefined, open: Claims["items"], units: number, reservationId: string): string[] {
    const claimed: string[] = [];
    let left = units;
    for (const item of open) {
      if (item.units > left) break;
      left -= item.units;
      claimed.push(item.key);
    }
    if (product === undefined) return claimed;
    for (const part of slices(claimed, KEYS_PER_STATEMENT / 3)) {
      this.sql.exec(
        `INSERT OR REPLACE INTO claims (product, key, reservation_id) VALUES ${part.map(() => "(?, ?, ?)").join(", ")}`,
        ...part.flatMap((key) => [product, key, reservationId]),
      );
    }
    return claimed;
  }

  /** Drops a finished reservation's claims and wakes every waiter to look again. */
  drop(reservationId: string) {
    this.sql.exec("DELETE FROM claims WHERE reservation_id = ?", reservationId);
    const woken = [...this.waiters];
    this.waiters.clear();
    for (const wake of woken) wake();
  }

  /** Resolves once none of `keys` is claimed, or after `timeoutMs`; returns the keys still claimed then. */
  async wait(product: string, keys: string[], timeoutMs: number): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    const claimed = () =>
      keys.filter(
        (key) => this.sql.exec("SELECT 1 FROM claims WHERE product = ? AND key = ?", product, key).toArray().length > 0,
      );
    let still = claimed();
    while (still.length && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiters.add(resolve);
        setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
      });
      still = claimed();
    }
    return still;
  }
}
