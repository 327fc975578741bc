import { insertRequestRecords, type RequestLogMessage } from "../src/db/request-log";

/**
 * Queue consumer for request records (src/http/request-log.ts): the records of every `request_log` message of one
 * delivered batch are inserted in one D1 statement. Inserting is idempotent on the request id, so a redelivered
 * message stores nothing twice; a failure retries the messages.
 */
export async function storeQueuedRequestRecords(env: Env, messages: readonly RequestLogMessage[]): Promise<void> {
  await insertRequestRecords(
    env.DB,
    messages.flatMap((message) => message.records),
  );
}
