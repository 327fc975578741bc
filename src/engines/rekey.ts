import { and, eq, lt } from "drizzle-orm";
import { chunks } from "../db/chunks";
import type { Database } from "../db/client";
import { repeats, suppressions } from "../db/schema";

/**
 * Re-keying after a product's key function changed (address keys, docs/address.md "Address keys"). Rows keyed by the
 * old function would stop matching: a suppression would silently stop suppressing, a repeat would be billed. So every
 * repeat marker and suppression carries the version of the key function that keyed it (0 before versions, which is
 * also what the previous release writes while a deploy rolls out), and a row of an older version is re-keyed from its
 * stored answer, which holds the value as sent, the first time the account's rows are read.
 */
export interface KeyVersion {
  version: number;
  /** The key of the value a stored answer was given for. */
  of(stored: unknown): string;
}

export type KeyedTable = "repeats" | "suppressions";

interface Keyed {
  key: string;
  keyVersion: number;
  result: unknown;
}

/** The row's new key; one whose stored answer cannot give one keeps its key and is only marked as current. */
function newKey(keys: KeyVersion, row: Keyed): string {
  if (row.result === null || row.result === undefined) return row.key;
  try {
    return keys.of(row.result);
  } catch {
    return row.key;
  }
}

// Moves travel as one JSON parameter ([[old, new], ...]); 200 of them stay far below D1's statement limits.
const MOVES_PER_STATEMENT = 200;

/**
 * One D1 batch that moves stale rows to their new keys: every stale row first takes a placeholder key (so a row whose
 * old key is another's new key cannot block it), then its new key; where a current row already holds that key (or
 * two old spellings fold to one key), the row there wins and the stale one goes. Raw statements: drizzle has no
 * `UPDATE OR IGNORE`. `table` is one of two fixed names, never input.
 */
function moveStatements(
  d1: D1Database,
  table: KeyedTable,
  accountId: string,
  product: string,
  moves: [string, string][],
  version: number,
): D1PreparedStatement[] {
  const mine = `account_id = ?1 AND product = ?2`;
  const placeholders = `(SELECT 'rekey:' || json_extract(value, '$[0]') FROM json_each(?3))`;
  const parts = chunks(moves, MOVES_PER_STATEMENT).map((part) => JSON.stringify(part));
  const each = (query: string) => parts.map((m) => d1.prepare(query).bind(accountId, product, m, version));
  return [
    ...each(
      `UPDATE ${table} SET "key" = 'rekey:' || "key" WHERE ${mine} AND key_version < ?4 AND "key"
        IN (SELECT json_extract(value, '$[0]') FROM json_each(?3))`,
    ),
    ...each(
      `UPDATE OR IGNORE ${table} SET "key" = (SELECT json_extract(n.value, '$[1]') FROM json_each(?3) n
        WHERE 'rekey:' || json_extract(n.value, '$[0]') = ${table}."key"), key_version = ?4 WHERE ${mine} AND "key"
          IN ${placeholders}`,
    ),
    ...each(`DELETE FROM ${table} WHERE ${mine} AND "key" IN ${placeholders} AND key_version < ?4`),
  ];
}

/**
 * Rows read for `wanted` keys, together with the account's stale rows: each by its current key, among `wanted`. Stale
 * rows are re-keyed in D1 on the way (once per account: afterwards none are left).
 */
export async function currentRows<R extends Keyed>(
  db: Database,
  table: KeyedTable,
  accountId: string,
  product: string,
  rows: R[],
  wanted: Set<string>,
  keys: KeyVersion | undefined,
): Promise<Map<string, R>> {
  const found = new Map<string, R>();
  const stale = new Map<string, R>();
  for (const row of rows) {
    if (keys && row.keyVersion < keys.version) stale.set(row.key, row);
    else if (wanted.has(row.key)) found.set(row.key, row);
  }
  if (!keys || !stale.size) return found;
  const moves = [...stale.values()].map((row): [R, string] => [row, newKey(keys, row)]);
  await db.$client.batch(
    moveStatements(
      db.$client,
      table,
      accountId,
      product,
      moves.map(([row, to]) => [row.key, to]),
      keys.version,
    ),
  );
  for (const [row, to] of moves)
    if (wanted.has(to) && !found.has(to)) found.set(to, { ...row, key: to, keyVersion: keys.version });
  return found;
}

const TABLES = { repeats, suppressions } as const;

/** The stale rows of one account and product, as a query to read with others (`unionAll`). */
export function staleRowsQuery(db: Database, table: KeyedTable, accountId: string, product: string, keys: KeyVersion) {
  const t = TABLES[table];
  return db
    .select({ key: t.key, keyVersion: t.keyVersion, result: t.result })
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.product, product), lt(t.keyVersion, keys.version)));
}

/** Re-keys every stale row of one account and product (before a list route reads or changes the list by key). */
export async function rekeyAll(
  db: Database,
  table: KeyedTable,
  accountId: string,
  product: string,
  keys: KeyVersion | undefined,
): Promise<void> {
  if (!keys) return;
  const rows = await staleRowsQuery(db, table, accountId, product, keys);
  await currentRows(db, table, accountId, product, rows, new Set(), keys);
}
