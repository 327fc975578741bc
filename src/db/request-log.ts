import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { requestLog } from "./schema";

export type RequestRecord = typeof requestLog.$inferSelect;
export type NewRequestRecord = typeof requestLog.$inferInsert;

/**
 * Records of one isolate's batch, sent on JOBS after the answers for the consumer to insert (workers/request-log.ts).
 */
export interface RequestLogMessage {
  type: "request_log";
  records: NewRequestRecord[];
}

/**
 * One statement for any number of records: they travel as one JSON array bound to a single parameter (D1 binds at most
 * 100 parameters per statement, 11 records of 9 columns), and `json_each` turns it back into rows. The `WHERE true`
 * is SQLite's required disambiguation between an INSERT ... SELECT and its ON CONFLICT clause.
 */
const INSERT_RECORDS = `INSERT INTO request_log
  (request_id, account_id, key_id, method, path, status, code, credits, created_at)
SELECT json_extract(value, '$.requestId'), json_extract(value, '$.accountId'), json_extract(value, '$.keyId'),
  json_extract(value, '$.method'), json_extract(value, '$.path'), json_extract(value, '$.status'),
  json_extract(value, '$.code'), coalesce(json_extract(value, '$.credits'), 0), json_extract(value, '$.createdAt')
FROM json_each(?1) WHERE true
ON CONFLICT (request_id) DO NOTHING`;

/**
 * Writes request records in one D1 statement (one round trip, one transaction). Idempotent: a record whose request id
 * is already stored is skipped, so a redelivered queue message never duplicates or overwrites one.
 */
export async function insertRequestRecords(db: D1Database, records: readonly NewRequestRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db.prepare(INSERT_RECORDS).bind(JSON.stringify(records)).run();
}

/** Which account made the request `requestId`, when its record is stored. */
export async function requestOwner(db: Database, requestId: string): Promise<string | undefined> {
  const row = await db
    .select({ accountId: requestLog.accountId })
    .from(requestLog)
    .where(eq(requestLog.requestId, requestId))
    .get();
  return row?.accountId;
}

/** The log line of one request, only when the account made it. */
export function requestOfAccount(
  db: Database,
  accountId: string,
  requestId: string,
): Promise<RequestRecord | undefined> {
  return db
    .select()
    .from(requestLog)
    .where(and(eq(requestLog.requestId, requestId), eq(requestLog.accountId, accountId)))
    .get();
}

/**
 * Records requests whose Worker died holding credits (the account's object found their holds unsettled): free, and
 * answered as a server error, unless the Worker recorded them after all.
 */
export async function recordUnfinished(
  db: Database,
  requests: { requestId: string; accountId: string; keyId: string | null; method: string; path: string; at: number }[],
): Promise<void> {
  if (!requests.length) return;
  const rows = requests.map((r) => ({
    requestId: r.requestId,
    accountId: r.accountId,
    keyId: r.keyId,
    method: r.method,
    path: r.path,
    status: 500,
    code: "SERVER_ERROR",
    credits: 0,
    createdAt: r.at,
  }));
  const [first, ...rest] = rows.map((row) => db.insert(requestLog).values(row).onConflictDoNothing());
  await db.batch([first!, ...rest]);
}
