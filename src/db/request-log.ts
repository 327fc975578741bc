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
