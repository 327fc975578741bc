import type { MiddlewareHandler } from "hono";
import { insertRequestRecords, type NewRequestRecord, type RequestLogMessage } from "../db/request-log";
import type { AppEnv } from "../types";

/** Records of requests that finish within this window of the first one are written together. */
export const REQUEST_LOG_WINDOW_MS = 25;
/** Pending records this many are sent at once, by the request whose record made them so many. */
export const REQUEST_LOG_MAX_RECORDS = 100;
/** Queue messages stay under the 128 KB a message may carry. */
const MESSAGE_BYTES_MAX = 100_000;

/** Records of this isolate's requests not yet handed to the queue: plain data, which any request may send. */
let pending: NewRequestRecord[] = [];

/** How long, and how many, of this isolate's records are kept at hand after they are logged (read-your-writes). */
export const RECENT_RECORDS_MS = 10_000;
const RECENT_RECORDS_MAX = 2_000;

/**
 * This isolate's records of the last `RECENT_RECORDS_MS`, by request id, oldest first: what `GET
 * /account/requests/{id}` answers while the record is still pending or on the queue (a second or so before D1 has it).
 */
const recent = new Map<string, NewRequestRecord>();

function remember(record: NewRequestRecord): void {
  recent.set(record.requestId, record);
  const oldest = (record.createdAt ?? Date.now()) - RECENT_RECORDS_MS;
  for (const [id, kept] of recent) {
    if (recent.size <= RECENT_RECORDS_MAX && (kept.createdAt ?? 0) >= oldest) break;
    recent.delete(id);
  }
}

/** The record of the request `requestId` when this isolate logged it lately; the caller checks its account. */
export const recentRecord = (requestId: string): NewRequestRecord | undefined => recent.get(requestId);

/** Sends every pending record, from the calling request (its own I/O, with its own bindings). */
function flush(env: Env): Promise<void> {
  if (pending.length === 0) return Promise.resolve();
  const records = pending;
  pending = [];
  return writeRequestRecords(env, records);
}

/**
 * Adds one record to this isolate's pending ones and returns a promise of this request's own, which the caller hands
 * to its `waitUntil`: after the window, from this request's own timer, it sends whatever is pending by then (its own
 * record, unless a request that finished earlier in the window already took it with its own). So the records of
 * requests finishing together go in one message, no record waits for a later request to come along, and no request
 * waits on a promise another request settles (Workers warn "Promise will never complete" about such a promise, and
 * cancel it with the request that owns it): what requests share is the array of records, never a promise or I/O.
 */
export function logRequest(env: Env, record: NewRequestRecord): Promise<void> {
  remember(record);
  pending.push(record);
  if (pending.length >= REQUEST_LOG_MAX_RECORDS) return flush(env);
  return new Promise<void>((resolve) => setTimeout(resolve, REQUEST_LOG_WINDOW_MS)).then(() => flush(env));
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
