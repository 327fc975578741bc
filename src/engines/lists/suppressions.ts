import type { StoredSuppression } from "../../../durable-objects/account-credits";
import type { Database } from "../../db/client";
import { listsOf, parseStored, recallLists } from "./account-lists";
import type { KeyVersion } from "../rekey";

/**
 * Every product's suppression list, keyed by (product, key) in the account's object (durable-objects/account/lists.ts).
 * Batches, bulk rows and monitor runs answer a suppressed value from its stored answer, free; a single lookup never
 * consults the list and may take a value off it. The walk writes verdicts through the object's `writeLists`
 * (src/engines/walk/remember.ts); these are the reads and the list routes' changes.
 */
export type SuppressionRow = Omit<StoredSuppression, "result"> & { accountId: string; result: unknown };
export type SuppressionSource = SuppressionRow["source"];

const withAccount = (accountId: string, row: StoredSuppression): SuppressionRow => ({
  ...row,
  accountId,
  result: parseStored(row.result),
});

/**
 * The stored answers of the suppressed values among `keys`. With `rekeyed` (a product whose key function changed), the
 * account's rows keyed by an older version are read in the same call and re-keyed (src/engines/rekey.ts).
 */
export async function suppressedAnswers(
  db: Database | Env,
  accountId: string,
  product: string,
  keys: string[],
  rekeyed?: KeyVersion,
): Promise<Map<string, unknown>> {
  const found = await recallLists(
    db,
    accountId,
    product,
    keys,
    Date.now(),
    { repeats: false, suppressions: true },
    rekeyed,
  );
  return found.suppressed;
}

export interface Suppress {
  key: string;
  reason: string;
  result: unknown;
}

/** Manual entries; values already listed stay as they are. Returns how many were added. */
export function addSuppressions(
  db: Database,
  accountId: string,
  product: string,
  entries: Suppress[],
  now: number,
  keyVersion = 0,
): Promise<number> {
  return listsOf(db, accountId).addSuppressions(product, entries, now, keyVersion);
}

export function removeSuppressions(db: Database, accountId: string, product: string, keys: string[]): Promise<number> {
  return listsOf(db, accountId).removeSuppressions(product, keys);
}

export async function removeSuppression(
  db: Database,
  accountId: string,
  product: string,
  id: number,
): Promise<SuppressionRow | null> {
  const row = await listsOf(db, accountId).removeSuppression(product, id);
  return row ? withAccount(accountId, row) : null;
}

/** One page (`PER_PAGE` rows), newest first, optionally for one key. */
export async function listSuppressions(db: Database, accountId: string, product: string, page: number, key?: string) {
  const { rows, total } = await listsOf(db, accountId).listSuppressions(product, page, key);
  return { rows: rows.map((row) => withAccount(accountId, row)), total };
}
