import { and, eq } from "drizzle-orm";
import type { Database } from "./client";
import { requestLog } from "./schema";

export type RequestRecord = typeof requestLog.$inferSelect;

/** The log line of one request, only when the account made it. */
export function requestOfAccount(db: Database, accountId: string, requestId: string): Promise<RequestRecord | undefined> {
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
export async function recordUnfinished(db: Database, requests: { requestId: string; accountId: string; keyId: string | null; method: string; path: string; at: number }[]): Promise<void> {
  if (!requests.length) return;
  const rows = requests.map((r) => ({ requestId: r.requestId, accountId: r.accountId, keyId: r.keyId, method: r.method, path: r.path, status: 500, code: "SERVER_ERROR", credits: 0, createdAt: r.at }));
  const [first, ...rest] = rows.map((row) => db.insert(requestLog).values(row).onConflictDoNothing());
  await db.batch([first!, ...rest]);
}
