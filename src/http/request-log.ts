import type { MiddlewareHandler } from "hono";
import { insertRequestRecords, type NewRequestRecord, type RequestLogMessage } from "../db/request-log";
import type { AppEnv } from "../types";

/** Records of requests that finish within this window of the first one are written together. */
export const REQUEST_LOG_WINDOW_MS = 25;
/** A batch this full takes no more records (the next request opens another); its window still ends its wait. */
export const REQUEST_LOG_MAX_RECORDS = 100;
/** Queue messages stay under the 128 KB a message may carry. */
const MESSAGE_BYTES_MAX = 100_000;

interface Batch {
  records: NewRequestRecord[];
  /** Settles once the batch's records are stored (in D1 or on the queue); it never rejects. */
  written: Promise<void>;
  close: () => void;
}

let open: Batch | null = null;

function openBatch(env: Env): Batch {
  let begin!: () => void;
  const closed = new Promise<void>((resolve) => (begin = resolve));
  const batch: Batch = {
    records: [],
    written: closed.then(() => writeRequestRecords(env, batch.records)),
    // Called by its own timer only (never early), so there is no timer left to clear.
    close: () => {
      if (open === batch) open = null;
      begin();
    },
  };
  setTimeout(batch.close, REQUEST_LOG_WINDOW_MS);
  return batch;
}

/**
 * Adds one record to this isolate's open batch and returns the promise of that batch's write. The caller hands it to
 * its own `waitUntil`, so every request keeps the isolate alive until its own record is stored: no record waits for
 * a later request to come along.
 */
export function logRequest(env: Env, record: NewRequestRecord): Promise<void> {
  open ??= openBatch(env);
  const batch = open;
  batch.records.push(record);
  // Not closed here: the write must start from the opener's own timer, in its own request. Started from this request's
  // handler it would do I/O with the opener's bindings, which Workers refuses ("Cannot perform I/O on behalf of a
  // different request"), and the batch's records would be lost (found by test/http/hostile-pass.test.ts).
  if (batch.records.length >= REQUEST_LOG_MAX_RECORDS && open === batch) open = null;
  return batch.written;
}

/** Splits records into queue messages that each stay under the size a message may carry. */
function messagesOf(records: readonly NewRequestRecord[]): RequestLogMessage[] {
  const messages: RequestLogMessage[] = [];
  let current: NewRequestRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = JSON.stringify(record).length + 1;
    if (current.length > 0 && bytes + size > MESSAGE_BYTES_MAX) {
      messages.push({ type: "request_log", records: current });
      [current, bytes] = [[], 0];
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) messages.push({ type: "request_log", records: current });
  return messages;
}

/**
 * Sends the records on the JOBS queue (one message, or one `sendBatch` when they outgrow a message), whose consumer
 * inserts each delivered batch in one statement (workers/request-log.ts): the request itself writes nothing to D1's
 * primary. When the queue refuses them, they go straight to D1 (one idempotent statement). Logged only when both
 * fail, the one case in which records are lost.
 */
export async function writeRequestRecords(env: Env, records: readonly NewRequestRecord[]): Promise<void> {
  if (records.length === 0) return;
  try {
    const messages = messagesOf(records);
    if (messages.length === 1) await env.JOBS.send(messages[0]!);
    else await env.JOBS.sendBatch(messages.map((body) => ({ body })));
  } catch (queueError) {
    try {
      await insertRequestRecords(env.DB, records);
    } catch (d1Error) {
      const requestIds = records.map((r) => r.requestId);
      console.error(
        JSON.stringify({
          event: "request_log_lost",
          request_ids: requestIds,
          queue_error: String(queueError),
          d1_error: String(d1Error),
        }),
      );
    }
  }
}

/**
 * Records what each request of a known account did (GET /account/requests/{id}). The record is sent after the
 * response, batched with other requests' records (docs/api-decisions.md, "Request record"); it never fails a request.
 */
export const recordRequests = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  const principal = c.var.principal;
  if (!principal || principal.kind === "sandbox") return;
  const written = logRequest(c.env, {
    requestId: c.var.requestId,
    accountId: principal.accountId,
    keyId: principal.keyId,
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    code: c.var.errorCode ?? null,
    credits: c.var.creditsUsed ?? 0,
    createdAt: Date.now(),
  });
  c.executionCtx.waitUntil(written);
};
