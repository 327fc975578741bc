import { and, eq, gte, sql } from "drizzle-orm";
import type { Database } from "./client";
import { listsOf } from "../engines/lists/account-lists";
import { requestLog } from "./schema";

/** A literal, not a bound parameter: D1 binds JS numbers as REAL, and the division must be an integer one. */
const DAY_MS = sql.raw("86400000");

/** One day's figure of one product: `day` is the UTC day's start (ms). */
export interface DailyFigure {
  day: number;
  product: string;
  count: number;
  credits: number;
}

/**
 * The account's API requests since `since`, per UTC day and per product, with the credits they charged (the request
 * log: what `GET /account/requests/{id}` reads). The product is the path's first segment under `/api/v1/`; the caller
 * keeps the segments that name a product.
 */
export function dailyRequests(db: Database, accountId: string, since: number): Promise<DailyFigure[]> {
  const rest = sql`substr(${requestLog.path}, 9)`;
  const day = sql<number>`(${requestLog.createdAt} / ${DAY_MS}) * ${DAY_MS}`;
  const product = sql<string>`substr(${rest}, 1, instr(${rest} || '/', '/') - 1)`;
  return db
    .select({
      day,
      product,
      count: sql<number>`count(*)`,
      credits: sql<number>`coalesce(sum(${requestLog.credits}), 0)`,
    })
    .from(requestLog)
    .where(
      and(
        eq(requestLog.accountId, accountId),
        gte(requestLog.createdAt, since),
        sql`${requestLog.path} like '/api/v1/%'`,
      ),
    )
    .groupBy(day, product)
    .all();
}

/**
 * The account's answered values since `since`, per UTC day and per product (history: every answer of a lookup, a
 * bulk row or a monitor run, with the credits it cost), from the account's object where its history lives. Products
 * that keep no history (entity, consistency) have none.
 */
export function dailyAnswers(db: Database, accountId: string, since: number): Promise<DailyFigure[]> {
  return listsOf(db, accountId).dailyAnswers(since);
}
