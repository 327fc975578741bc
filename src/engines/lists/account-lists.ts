import type { StoredKeyed } from "../../../durable-objects/account-object";
import { envOf, type Database } from "../../db/client";
import { accountObject } from "../credits/credits";
import { currentRows, type KeyedTable, type KeyVersion } from "../rekey";

/** The account's object, which holds its lists (durable-objects/account/lists.ts), from a `Database` or an env. */
export const listsOf = (db: Database | Env, accountId: string) =>
  accountObject("DB" in db && "ACCOUNTS" in db ? (db as Env) : envOf(db as Database), accountId);

/**
 * The 7-day repeat window of every product, keyed by (product, key) in the account's object (its lists, beside its
 * money: durable-objects/account/lists.ts): a repeat of a paid (or settled) answer within the window is free. The
 * object prunes markers past the window itself.
 */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;

/** A stored answer as the object keeps it (JSON text), read back. */
export const parseStored = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export interface Recalled {
  repeats: Map<string, { result: unknown; createdAt: number }>;
  /** Suppressed values' stored answers (values listed without one are left out). */
  suppressed: Map<string, unknown>;
}

/**
 * The stored repeats (inside the window) and, with `suppressions`, the suppressed answers of `keys`: one call to the
 * account's object. With `rekeyed` (a product whose key function changed), rows keyed by an older version come back
 * too and are re-keyed (one more call, once per account and version).
 */
export async function recallLists(
  db: Database | Env,
  recall: {
    accountId: string;
    product: string;
    keys: string[];
    now: number;
    /** What to read (the walk's `listsWanted`): `staleBelow` (a rekeyed product) also reads older versions' rows. */
    want: { repeats: boolean; suppressions: boolean; staleBelow?: number };
    rekeyed?: KeyVersion;
  },
): Promise<Recalled> {
  const { accountId, product, keys, now, want, rekeyed } = recall;
  const found = await listsOf(db, accountId).recallLists(product, [...new Set(keys)], want, now);
  return readRecalled(db, { accountId, product, found, keys, rekeyed });
}

/**
 * The object's rows for `keys` as the walk reads them: stale rows re-keyed on the way (src/engines/rekey.ts), which
 * only a product whose key function changed has.
 */
export async function readRecalled(
  db: Database | Env,
  read: {
    accountId: string;
    product: string;
    found: { repeats: StoredKeyed[]; suppressions: StoredKeyed[] };
    keys: string[];
    rekeyed?: KeyVersion | undefined;
  },
): Promise<Recalled> {
  const { product, found, rekeyed } = read;
  const wanted = new Set(read.keys);
  const parsed = (rows: StoredKeyed[]) =>
    rows.filter((row) => rekeyed || wanted.has(row.key)).map((row) => ({ ...row, result: parseStored(row.result) }));
  const current = (table: KeyedTable, rows: StoredKeyed[]) =>
    currentRows(listsOf(db, read.accountId), { table, product, rows: parsed(rows), wanted, keys: rekeyed });
  const [repeats, suppressions] = rekeyed
    ? await Promise.all([current("repeats", found.repeats), current("suppressions", found.suppressions)])
    : [parsed(found.repeats), parsed(found.suppressions)].map((rows) => new Map(rows.map((row) => [row.key, row])));
  const suppressed = new Map<string, unknown>();
  for (const [key, row] of suppressions!) if (row.result !== null) suppressed.set(key, row.result);
  return {
    repeats: new Map([...repeats!].map(([key, row]) => [key, { result: row.result, createdAt: row.createdAt }])),
    suppressed,
  };
}

/** Re-keys every stale row of one account and product (before a list route reads or changes the list by key). */
export async function rekeyAll(
  db: Database,
  rekey: { table: KeyedTable; accountId: string; product: string; keys: KeyVersion | undefined },
): Promise<void> {
  const { table, accountId, product, keys } = rekey;
  if (!keys) return;
  const stub = listsOf(db, accountId);
  const found = await stub.recallLists(product, [], {
    repeats: table === "repeats",
    suppressions: table === "suppressions",
    staleBelow: keys.version,
  });
  const rows = found[table].map((row) => ({ ...row, result: parseStored(row.result) }));
  await currentRows(stub, { table, product, rows, wanted: new Set(), keys });
}
