import { and, eq, gte, sql } from "drizzle-orm";
import type { Database } from "./client";
import { requestLog } from "./schema";

/** A literal, not a bound parameter: D1 binds JS numbers as REAL, and the division must be an integer one. */
const DAY_MS = sql.raw("86400000");

/** One day's count of one product: `day` is the UTC day's start (ms). */
export interface DailyCount {
  day: number;
  product: string;
  count: number;
}

/**
 * The account's API requests since `since`, per UTC day and per product (the request log: what
 * `GET /account/requests/{id}` reads). The product is the path's first segment under `/api/v1/`; the caller keeps the
 * segments that name a product. Credits are not counted here: the ledger in the account's object has every charge.
 */
export function dailyRequests(db: Database, accountId: string, since: number): Promise<DailyCount[]> {
  const rest = sql`substr(${requestLog.path}, 9)`;
  const day = sql<number>`(${requestLog.createdAt} / ${DAY_MS}) * ${DAY_MS}`;
  const product = sql<string>`substr(${rest}, 1, instr(${rest} || '/', '/') - 1)`;
  return db
    .select({
      day,
      product,
      count: sql<number>`count(*)`,
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
