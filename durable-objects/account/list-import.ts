/**
 * The move of an account's lists from the old layout (D1 tables keyed by `account_id`) into its object: read once,
 * page by page, on the object's first use of its lists (or when an operator asks), and inserted with `OR IGNORE` on
 * the rows' own identities (D1 ids for suppressions, history and feedback; (product, key) for repeat markers), so a
 * run again inserts nothing twice and a row the object wrote since is never overwritten by its older D1 copy.
 */

const PAGE = 500;
const DONE = "lists_imported";

type Row = Record<string, string | number | null>;

interface TableMove {
  name: string;
  /** Columns copied as they are (everything but `account_id`). */
  columns: string[];
  /** Keyset paging: the D1 ordering columns (unique per account). */
  order: string[];
}

const MOVES: TableMove[] = [
  {
    name: "repeats",
    columns: ["product", "key", "result", "key_version", "created_at"],
    order: ["product", "key"],
  },
  {
    name: "suppressions",
    columns: ["id", "product", "key", "reason", "source", "result", "key_version", "created_at"],
    order: ["id"],
  },
  {
    name: "history",
    columns: [
      "id",
      "product",
      "request_id",
      "value",
      "key",
      "verdict",
      "reason",
      "credits_used",
      "cache_hit",
      "suppressed",
      "created_at",
    ],
    order: ["id"],
  },
  {
    name: "feedback",
    columns: ["id", "product", "key", "outcome", "kind", "facet", "detail", "source", "created_at"],
    order: ["id"],
  },
];

export function listsImported(sql: SqlStorage): boolean {
  sql.exec("CREATE TABLE IF NOT EXISTS list_meta (name TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  return sql.exec("SELECT 1 FROM list_meta WHERE name = ?", DONE).toArray().length > 0;
}

/** Copies the account's D1 rows into the object's tables; returns how many rows were new here. */
export async function importLists(sql: SqlStorage, d1: D1Database, accountId: string, now: number) {
  let inserted = 0;
  for (const move of MOVES) {
    let after: Row | null = null;
    for (;;) {
      const keyset: string = after ? ` AND (${move.order.join(", ")}) > (${move.order.map(() => "?").join(", ")})` : "";
      const binds: (string | number | null)[] = after ? move.order.map((c) => after![c] ?? null) : [];
      const { results }: D1Result<Row> = await d1
        .prepare(
          `SELECT ${move.columns.join(", ")} FROM ${move.name} WHERE account_id = ?${keyset}
           ORDER BY ${move.order.join(", ")} LIMIT ${PAGE}`,
        )
        .bind(accountId, ...binds)
        .all<Row>();
      for (const row of results)
        inserted += sql
          .exec(
            `INSERT OR IGNORE INTO ${move.name} (${move.columns.join(", ")})
           VALUES (${move.columns.map(() => "?").join(", ")}) RETURNING 1`,
            ...move.columns.map((c) => row[c] ?? null),
          )
          .toArray().length;
      if (results.length < PAGE) break;
      after = results[results.length - 1]!;
    }
  }
  sql.exec("INSERT OR REPLACE INTO list_meta (name, at) VALUES (?, ?)", DONE, now);
  return inserted;
}
