import { and, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../db/client";
import { history } from "../../db/schema";
import { chunks } from "../../db/chunks";
import { PER_PAGE } from "../../db/listing";

/** Every answer an account received (test values excepted), per product, kept `HISTORY_RETENTION_DAYS`. */
export const HISTORY_RETENTION_DAYS = 90;

export type HistoryRow = typeof history.$inferSelect;

export interface HistoryEntry {
  value: string;
  key: string;
  verdict: string;
  reason: string | null;
  creditsUsed: number;
  cacheHit: boolean;
  suppressed: boolean;
}

/** 12 parameters a row. */
export function historyStatements(
  db: Database,
  accountId: string,
  product: string,
  requestId: string,
  entries: HistoryEntry[],
  now: number,
): BatchItem<"sqlite">[] {
  return chunks(entries, 8).map((part) =>
    db.insert(history).values(part.map((e) => ({ accountId, product, requestId, ...e, createdAt: now }))),
  );
}

export interface HistoryFilter {
  page: number;
  since?: number;
  until?: number;
  verdict?: string;
  key?: string;
}

export async function listHistory(db: Database, accountId: string, product: string, q: HistoryFilter) {
  const filters: (SQL | undefined)[] = [
    eq(history.accountId, accountId),
    eq(history.product, product),
    q.since !== undefined ? gte(history.createdAt, q.since) : undefined,
    q.until !== undefined ? lt(history.createdAt, q.until) : undefined,
    q.verdict ? eq(history.verdict, q.verdict) : undefined,
    q.key ? eq(history.key, q.key) : undefined,
  ];
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(history)
      .where(where)
      .orderBy(desc(history.id))
      .limit(PER_PAGE)
      .offset((q.page - 1) * PER_PAGE),
    db.select({ n: count() }).from(history).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export const sweepHistory = (db: Database, now: number) =>
  db.delete(history).where(lt(history.createdAt, now - HISTORY_RETENTION_DAYS * 86_400_000));
