/**
 * Re-keying after a product's key function changed (address keys, docs/address.md "Address keys"). Rows keyed by the
 * old function would stop matching: a suppression would silently stop suppressing, a repeat would be billed. So every
 * repeat marker and suppression (in the account's object) carries the version of the key function that keyed it (0
 * before versions, which is also what the previous release writes while a deploy rolls out), and a row of an older
 * version is re-keyed from its stored answer, which holds the value as sent, the first time the account's rows are
 * read.
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

/** The account's object, as far as re-keying needs it. */
interface Rekeyer {
  rekeyLists(table: KeyedTable, product: string, moves: [string, string][], version: number): Promise<void>;
}

/**
 * Rows read for `wanted` keys, together with the account's stale rows: each by its current key, among `wanted`. Stale
 * rows are re-keyed in the account's object on the way (once per account: afterwards none are left). The object moves
 * them (durable-objects/account/lists.ts `rekey`); the new keys come from the product's key function, here.
 */
export async function currentRows<R extends Keyed>(
  stub: Rekeyer,
  read: { table: KeyedTable; product: string; rows: R[]; wanted: Set<string>; keys: KeyVersion | undefined },
): Promise<Map<string, R>> {
  const { table, product, rows, wanted, keys } = read;
  const found = new Map<string, R>();
  const stale = new Map<string, R>();
  for (const row of rows) {
    if (keys && row.keyVersion < keys.version) stale.set(row.key, row);
    else if (wanted.has(row.key)) found.set(row.key, row);
  }
  if (!keys || !stale.size) return found;
  const moves = [...stale.values()].map((row): [R, string] => [row, newKey(keys, row)]);
  await stub.rekeyLists(
    table,
    product,
    moves.map(([row, to]) => [row.key, to]),
    keys.version,
  );
  for (const [row, to] of moves)
    if (wanted.has(to) && !found.has(to)) found.set(to, { ...row, key: to, keyVersion: keys.version });
  return found;
}
