import type { StoredHistory } from "../../../durable-objects/account-object";
import type { Database } from "../../db/client";
import { listsOf } from "./account-lists";

/**
 * Every answer an account received (test values excepted), per product, kept `HISTORY_RETENTION_DAYS` in the
 * account's object (durable-objects/account/lists.ts prunes older rows itself). The walk writes it through the
 * object's `writeLists` (src/engines/walk/settle.ts).
 */
export const HISTORY_RETENTION_DAYS = 90;

export type HistoryRow = StoredHistory & { accountId: string };

export interface HistoryFilter {
  page: number;
  since?: number | undefined;
  until?: number | undefined;
  verdict?: string | undefined;
  key?: string | undefined;
}

/** One page (`PER_PAGE` rows), newest first. */
export async function listHistory(db: Database, accountId: string, product: string, q: HistoryFilter) {
  const { rows, total } = await listsOf(db, accountId).listHistory(product, q);
  return { rows: rows.map((row): HistoryRow => ({ ...row, accountId })), total };
}
