import { addColumn } from "./prepaid-pool";
import type { LedgerRow } from "./types";

/** A ledger row as written: everything but its id. */
type LedgerEntry = Omit<LedgerRow, "id">;

/** Credits charged in one UTC day for one product (null: a charge recorded before the ledger kept products). */
export interface DailyCharge {
  /** The UTC day's start (ms). */
  day: number;
  product: string | null;
  credits: number;
  /** Ledger rows: a batch, a bulk chunk or a monitor run is one row however many values it answered. */
  charges: number;
}

/**
 * The account's ledger: one row per movement of its balance. Its schema is made here (the object migrates its own
 * tables: a column added later is added to objects made before it), its rows written by the balance and read by the
 * ledger's pages and the usage page.
 */
export function createLedger(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
    request_id TEXT, kind TEXT NOT NULL, plan_delta INTEGER NOT NULL, pack_delta INTEGER NOT NULL,
    plan_after INTEGER NOT NULL, pack_after INTEGER NOT NULL, key_id TEXT, note TEXT)`);
  // Rows written before the ledger named the product a charge paid for keep null ("unknown" on the usage page).
  addColumn(sql, "ledger", "product", "TEXT");
  sql.exec("CREATE INDEX IF NOT EXISTS ledger_at ON ledger (at)");
}

export function appendLedger(sql: SqlStorage, entry: LedgerEntry): void {
  sql.exec(
    "INSERT INTO ledger (at, request_id, kind, plan_delta, pack_delta, plan_after, pack_after, key_id, note, " +
      "product) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    entry.at,
    entry.request_id,
    entry.kind,
    entry.plan_delta,
    entry.pack_delta,
    entry.plan_after,
    entry.pack_after,
    entry.key_id,
    entry.note,
    entry.product,
  );
}

/** A page of the ledger, newest first. */
export function ledgerPage(sql: SqlStorage, page: number, perPage: number): { rows: LedgerRow[]; total: number } {
  const total = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM ledger").one().n;
  const rows = sql
    .exec<Record<keyof LedgerRow, SqlStorageValue>>(
      "SELECT * FROM ledger ORDER BY id DESC LIMIT ? OFFSET ?",
      perPage,
      (page - 1) * perPage,
    )
    .toArray() as unknown as LedgerRow[];
  return { rows, total };
}

/** Every movement written under one request or operation id (a bulk chunk, a monitor run, a payment), oldest first. */
export function movementsOf(sql: SqlStorage, requestId: string): LedgerRow[] {
  return sql
    .exec<Record<keyof LedgerRow, SqlStorageValue>>(
      "SELECT * FROM ledger WHERE request_id = ? ORDER BY id LIMIT 100",
      requestId,
    )
    .toArray() as unknown as LedgerRow[];
}

/**
 * Credits that left the balance since `since`, per UTC day and per product: every charge row, whatever made it (a
 * lookup, a batch, a bulk chunk, a monitor run, a partner check), less the refunds of requests that failed after
 * settling (their credits; `charges` counts charge rows), so the figures add up to the ledger's.
 */
export function dailyCharges(sql: SqlStorage, since: number): DailyCharge[] {
  return sql
    .exec<{ day: number; product: string | null; credits: number; charges: number }>(
      `SELECT (at / 86400000) * 86400000 AS day, product, -SUM(plan_delta + pack_delta) AS credits,
        SUM(kind = 'charge') AS charges FROM ledger
        WHERE kind IN ('charge', 'refund') AND at >= ? GROUP BY day, product ORDER BY day, product`,
      since,
    )
    .toArray();
}
