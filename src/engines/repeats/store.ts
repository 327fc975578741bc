import type { Database } from "../../db/client";
import { recallLists } from "../lists/account-lists";
import type { KeyVersion } from "../rekey";

/**
 * The 7-day repeat window of every product, keyed by (product, key) in the account's object (its lists, beside its
 * money: durable-objects/account/lists.ts): a repeat of a paid (or settled) answer within the window is free. The
 * object prunes markers past the window itself.
 */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;

export interface Repeat {
  result: unknown;
  createdAt: number;
}

/**
 * The account's repeat answers for these keys still inside the window. With `rekeyed` (a product whose key function
 * changed), the account's markers keyed by an older version are read in the same call and re-keyed
 * (src/engines/rekey.ts).
 */
export async function recallRepeats(
  db: Database | Env,
  accountId: string,
  product: string,
  keys: string[],
  now: number,
  rekeyed?: KeyVersion,
): Promise<Map<string, Repeat>> {
  const found = await recallLists(db, accountId, product, keys, now, { repeats: true, suppressions: false }, rekeyed);
  return found.repeats;
}
