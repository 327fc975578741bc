import { type SuppressionSql, suppressionOf } from "./list-pages";
import type { ListsWrite, StoredKeyed, StoredSuppression, SuppressionEntry } from "./list-types";
import { addColumn } from "./prepaid-pool";

/** Repeat markers answer 7 days; history is kept 90 (src/engines/lists/account-lists.ts, lists/history.ts). */
const REPEAT_WINDOW_MS = 7 * 86_400_000;
const HISTORY_RETENTION_MS = 90 * 86_400_000;
/** Expired rows are pruned on a list call at most this often (a cheap indexed delete, not on every answer). */
const PRUNE_EVERY_MS = 3_600_000;
/** Keys per statement: Durable Object SQL binds at most 100 parameters. */
const KEYS_PER_STATEMENT = 90;

const marks = (n: number) => Array(n).fill("?").join(", ");
const slices = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * The account's own lists, in its object's SQLite beside its money: repeat markers, suppressions, history and
 * feedback (the same columns as the D1 tables of the old layout, minus `account_id`: the object is the account). Every
 * method is synchronous SQL, so a write of several tables is atomic and a read sees every write before it.
 */
export class AccountLists {
  private prunedAt = 0;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS repeats (product TEXT NOT NULL, key TEXT NOT NULL, result TEXT NOT NULL,
        key_version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, PRIMARY KEY (product, key));
      CREATE INDEX IF NOT EXISTS repeats_created ON repeats (created_at);
      CREATE INDEX IF NOT EXISTS repeats_key_version ON repeats (product, key_version);
      CREATE TABLE IF NOT EXISTS suppressions (id INTEGER PRIMARY KEY AUTOINCREMENT, product TEXT NOT NULL,
        key TEXT NOT NULL, reason TEXT NOT NULL, source TEXT NOT NULL, result TEXT,
        key_version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS suppressions_key ON suppressions (product, key);
      CREATE INDEX IF NOT EXISTS suppressions_key_version ON suppressions (product, key_version);
      CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, product TEXT NOT NULL,
        request_id TEXT NOT NULL, value TEXT NOT NULL, key TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT,
        credits_used INTEGER NOT NULL, cache_hit INTEGER NOT NULL, suppressed INTEGER NOT NULL,
        created_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS history_product ON history (product, created_at);
      CREATE INDEX IF NOT EXISTS history_created ON history (created_at);
      CREATE TABLE IF NOT EXISTS feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, product TEXT NOT NULL,
        key TEXT NOT NULL, outcome TEXT NOT NULL, kind TEXT, facet TEXT, detail TEXT, source TEXT NOT NULL,
        created_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS feedback_product ON feedback (product, created_at);
      CREATE INDEX IF NOT EXISTS feedback_key ON feedback (product, key);
    `);
    // The request whose settlement wrote a marker (a refund of it takes the marker back); null: written otherwise.
    addColumn(sql, "repeats", "request_id", "TEXT");
  }

  /**
   * The stored rows of `keys` (repeats inside the window; suppressions), plus, with `staleBelow`, every row keyed by
   * an older key function, for the Worker to re-key (src/engines/rekey.ts).
   */
  recall(
    product: string,
    keys: string[],
    now: number,
    want: { repeats: boolean; suppressions: boolean; staleBelow?: number },
  ): { repeats: StoredKeyed[]; suppressions: StoredKeyed[] } {
    return {
      repeats: want.repeats
        ? this.keyed("repeats", { product, keys, staleBelow: want.staleBelow, after: now - REPEAT_WINDOW_MS })
        : [],
      suppressions: want.suppressions
        ? this.keyed("suppressions", { product, keys, staleBelow: want.staleBelow, after: null })
        : [],
    };
  }

  /**
   * The table's rows for `keys` and those of a key version below `staleBelow`; only rows made after `after` (null: any
   * age).
   */
  private keyed(
    table: "repeats" | "suppressions",
    query: { product: string; keys: string[]; staleBelow: number | undefined; after: number | null },
  ): StoredKeyed[] {
    const { product, keys, staleBelow, after } = query;
    // The cut-off is bound, never written into the text: the object caches a prepared statement per distinct text,
    // and a timestamp in it made every call compile its statement anew (the heaviest part of a paid call's profile).
    const live = after === null ? "" : " AND created_at > ?";
    const cutoff = after === null ? [] : [Math.floor(after)];
    const columns = `key, key_version, result${table === "repeats" ? ", created_at" : ""}`;
    const rows: StoredKeyed[] = [];
    const read = (where: string, ...binds: (string | number)[]) => {
      const found = this.sql.exec<{ key: string; key_version: number; result: string | null; created_at?: number }>(
        `SELECT ${columns} FROM ${table} WHERE product = ? AND ${where}${live}`,
        product,
        ...binds,
        ...cutoff,
      );
      for (const r of found)
        rows.push({ key: r.key, keyVersion: r.key_version, result: r.result, createdAt: r.created_at ?? 0 });
    };
    for (const part of slices([...new Set(keys)], KEYS_PER_STATEMENT)) read(`key IN (${marks(part.length)})`, ...part);
    if (staleBelow !== undefined) read("key_version < ?", staleBelow);
    return rows;
  }

  /** Keys of `items` whose live repeat marker started after the one the caller saw (`seen`, 0 for none). */
  answeredSince(product: string, items: { key: string; seen?: number }[], now: number): Set<string> {
    const seen = new Map(items.filter((i) => i.seen !== undefined).map((i) => [i.key, i.seen!]));
    const newer = new Set<string>();
    for (const part of slices([...seen.keys()], KEYS_PER_STATEMENT)) {
      const rows = this.sql.exec<{ key: string; created_at: number }>(
        `SELECT key, created_at FROM repeats WHERE product = ? AND key IN (${marks(part.length)}) AND created_at > ?`,
        product,
        ...part,
        now - REPEAT_WINDOW_MS,
      );
      for (const r of rows) if (r.created_at > (seen.get(r.key) ?? 0)) newer.add(r.key);
    }
    return newer;
  }

  /**
   * Moves stale rows to their new keys: each first takes a placeholder key (so an old key that is another row's new
   * key cannot block it), then its new key; where a current row holds it already, that row wins and the stale one goes.
   */
  rekey(table: "repeats" | "suppressions", product: string, moves: [string, string][], version: number) {
    for (const part of slices(moves, 200)) {
      const json = JSON.stringify(part);
      const placeholders = `(SELECT 'rekey:' || json_extract(value, '$[0]') FROM json_each(?))`;
      this.sql.exec(
        `UPDATE ${table} SET key = 'rekey:' || key WHERE product = ? AND key_version < ? AND key
          IN (SELECT json_extract(value, '$[0]') FROM json_each(?))`,
        product,
        version,
        json,
      );
      this.sql.exec(
        `UPDATE OR IGNORE ${table} SET key = (SELECT json_extract(n.value, '$[1]') FROM json_each(?) n
          WHERE 'rekey:' || json_extract(n.value, '$[0]') = ${table}.key), key_version = ?
         WHERE product = ? AND key IN ${placeholders}`,
        json,
        version,
        product,
        json,
      );
      this.sql.exec(
        `DELETE FROM ${table} WHERE product = ? AND key IN ${placeholders} AND key_version < ?`,
        product,
        json,
        version,
      );
    }
  }

  /**
   * What one walk (or one feedback post) learned, in one synchronous transaction; `requestId`: the request whose
   * settlement carries it, named on its repeat markers.
   */
  write(product: string, w: ListsWrite, now: number, requestId: string | null = null) {
    for (const r of w.repeats ?? [])
      this.sql.exec(
        `INSERT INTO repeats (product, key, result, key_version, created_at, request_id) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (product, key) DO UPDATE SET result = excluded.result, key_version = excluded.key_version,
           created_at = excluded.created_at, request_id = excluded.request_id`,
        product,
        r.key,
        JSON.stringify(r.result),
        w.keyVersion ?? 0,
        now,
        requestId,
      );
    if (w.suppress) this.suppress({ product, ...w.suppress, now, keyVersion: w.keyVersion ?? 0 });
    for (const part of slices(w.unsuppress ?? [], KEYS_PER_STATEMENT))
      this.sql.exec(
        `DELETE FROM suppressions WHERE product = ? AND key IN (${marks(part.length)}) AND source != 'feedback'`,
        product,
        ...part,
      );
    for (const h of w.history ?? [])
      this.sql.exec(
        `INSERT INTO history (product, request_id, value, key, verdict, reason, credits_used, cache_hit, suppressed,
          created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        product,
        h.requestId,
        h.value,
        h.key,
        h.verdict,
        h.reason,
        h.creditsUsed,
        h.cacheHit ? 1 : 0,
        h.suppressed ? 1 : 0,
        now,
      );
    for (const f of w.feedback ?? [])
      this.sql.exec(
        `INSERT INTO feedback (product, key, outcome, kind, facet, detail, source, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        product,
        f.key,
        f.outcome,
        f.kind,
        f.facet,
        f.detail === null || f.detail === undefined ? null : JSON.stringify(f.detail),
        f.source,
        now,
      );
  }

  /** Adds values or refreshes listed ones (keeping their source, except that feedback takes an entry over). */
  private suppress(write: {
    product: string;
    entries: SuppressionEntry[];
    source: string;
    now: number;
    keyVersion: number;
  }) {
    const { product, entries, source, now, keyVersion } = write;
    const takeOver = source === "feedback" ? ", source = excluded.source" : "";
    for (const e of entries)
      this.sql.exec(
        `INSERT INTO suppressions (product, key, reason, source, result, key_version, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (product, key) DO UPDATE SET result = excluded.result, reason = excluded.reason${takeOver}`,
        product,
        e.key,
        e.reason,
        source,
        JSON.stringify(e.result),
        keyVersion,
        now,
      );
  }

  /** Manual entries; values already listed stay as they are. Returns how many were added. */
  addManual(product: string, entries: SuppressionEntry[], now: number, keyVersion: number): number {
    let added = 0;
    for (const e of entries)
      added += this.sql
        .exec(
          `INSERT INTO suppressions (product, key, reason, source, result, key_version, created_at)
         VALUES (?, ?, ?, 'manual', ?, ?, ?) ON CONFLICT (product, key) DO NOTHING RETURNING id`,
          product,
          e.key,
          e.reason,
          e.result === null || e.result === undefined ? null : JSON.stringify(e.result),
          keyVersion,
          now,
        )
        .toArray().length;
    return added;
  }

  removeKeys(product: string, keys: string[]): number {
    let removed = 0;
    for (const part of slices([...new Set(keys)], KEYS_PER_STATEMENT))
      removed += this.sql
        .exec(
          `DELETE FROM suppressions WHERE product = ? AND key IN (${marks(part.length)}) RETURNING id`,
          product,
          ...part,
        )
        .toArray().length;
    return removed;
  }

  removeId(product: string, id: number): StoredSuppression | null {
    const [row] = this.sql.exec<SuppressionSql>(
      "DELETE FROM suppressions WHERE product = ? AND id = ? RETURNING *",
      product,
      id,
    );
    return row ? suppressionOf(row) : null;
  }

  /**
   * A refunded request's answers never reached its caller: its repeat markers (unless a later answer rewrote them) and
   * history rows written since `since` go, so the next lookup of those values is answered, and charged, afresh.
   */
  forget(requestId: string, since: number) {
    this.sql.exec("DELETE FROM repeats WHERE created_at >= ? AND request_id = ?", since, requestId);
    this.sql.exec("DELETE FROM history WHERE created_at >= ? AND request_id = ?", since, requestId);
  }

  /** Retention inside the object: markers past the window, history past 90 days (at most hourly, on a list call). */
  prune(now: number, force = false) {
    if (!force && now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.sql.exec("DELETE FROM repeats WHERE created_at < ?", now - REPEAT_WINDOW_MS);
    this.sql.exec("DELETE FROM history WHERE created_at < ?", now - HISTORY_RETENTION_MS);
  }
}
