/**
 * Which version of each product's policy the account has (its `updated_at`; 0 when it has none), so the request that
 * is admitted learns it in the same call and reads the rules from D1 only when its isolate has not parsed that
 * version. A product with no row here is not known yet: the Worker reads D1 once and teaches it (`learn`).
 */
export class PolicyStamps {
  /** The rows as last read (every write goes through here), so admitting a request reads nothing. */
  private known: Record<string, number> | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS policy_stamps (product TEXT PRIMARY KEY, stamp INTEGER NOT NULL)");
  }

  all(): Record<string, number> {
    this.known ??= Object.fromEntries(
      this.sql
        .exec<{ product: string; stamp: number }>("SELECT product, stamp FROM policy_stamps")
        .toArray()
        .map((r) => [r.product, r.stamp]),
    );
    return this.known;
  }

  /** A policy was written or deleted (0): this is its version now. */
  set(product: string, stamp: number): void {
    this.sql.exec("INSERT OR REPLACE INTO policy_stamps (product, stamp) VALUES (?, ?)", product, stamp);
    this.known = null;
  }

  /** What a Worker read from D1 for a product not known here; a `set` made meanwhile wins. */
  learn(product: string, stamp: number): void {
    this.sql.exec("INSERT OR IGNORE INTO policy_stamps (product, stamp) VALUES (?, ?)", product, stamp);
    this.known = null;
  }
}
