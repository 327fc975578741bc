import { database } from "../src/db/client";
import { insertRequestRecords, type RequestLogMessage } from "../src/db/request-log";

/**
 * Queue consumer for request records whose flush D1 refused after the response (src/http/request-log.ts). Inserting is
 * idempotent on the request id, so a redelivered message stores nothing twice; a failure retries the message.
 */
export async function storeQueuedRequestRecords(env: Env, message: RequestLogMessage): Promise<void> {
  await insertRequestRecords(database(env), message.records);
}
