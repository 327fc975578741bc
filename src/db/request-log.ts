import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { requestLog } from "./schema";

export type RequestRecord = typeof requestLog.$inferSelect;
export type NewRequestRecord = typeof requestLog.$inferInsert;

/** Records of a flush D1 refused, queued on JOBS for the consumer to insert (workers/request-log.ts). */
export interface RequestLogMessage {
  type: "request_log";
  records: NewRequestRecord[];
}

/** D1 binds at most 100 parameters per statement, and a record has 9 columns. */
const RECORDS_PER_STATEMENT = Math.floor(100 / 9);

/**
 * Writes request records in one D1 batch (one round trip, one transaction). Idempotent: a record whose request id is
 * already stored is skipped, so a retried flush or a redelivered queue message never duplicates or overwrites one.
 */
export async function insertRequestRecords(db: Database, records: readonly NewRequestRecord[]): Promise<void> {
  const statements = [];
  for (let i = 0; i < records.length; i += RECORDS_PER_STATEMENT) {
    statements.push(
      db
        .insert(requestLog)
        .values(records.slice(i, i + RECORDS_PER_STATEMENT))
        .onConflictDoNothing(),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
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
