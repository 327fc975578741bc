import type { RequestLogMessage } from "./db/request-log";
import type { RunMessage } from "./engines/bulk/messages";
import type { RefreshMessage } from "./engines/datasets/refreshable";
import type { NoticeMessage } from "./engines/mail/notices";
import type { MailQueueMessage } from "./engines/mail/outbox";
import type { SelfServiceMessage } from "./engines/mail/self-service";
import type { MonitorMessage } from "./engines/monitors/messages";
import type { DeliveryMessage } from "./engines/webhooks/outbox";
import { registeredProducts } from "./products/registry";
import { runBulkJob } from "../workers/bulk-runner";
import { deliverQueuedWebhook } from "../workers/deliveries";
import { runRefreshMessage } from "../workers/dataset-refresh";
import { mailAccountNotice, sendQueuedMail, sendSelfServiceMail } from "../workers/mail";
import { runDueMonitor } from "../workers/monitors";
import { productBatchHandlers, type BatchHandler } from "../workers/product-batches";
import { storeQueuedRequestRecords } from "../workers/request-log";

/**
 * The engines' and the platform's messages; products add their own (`Product.messages`), which carry at least a `type`.
 */
export type EngineMessage =
  | RunMessage
  | DeliveryMessage
  | MonitorMessage
  | RequestLogMessage
  | RefreshMessage
  | MailQueueMessage
  | NoticeMessage
  | SelfServiceMessage;
export type JobMessage = EngineMessage | { type: string };

const isEngineMessage = (body: JobMessage): body is EngineMessage =>
  [
    "run",
    "delivery",
    "monitor_run",
    "request_log",
    "dataset_refresh",
    "mail",
    "mail_notice",
    "self_service_mail",
  ].includes(body.type);

/** Message type -> handler. Every handler is idempotent, so a retried batch is harmless. */
async function handle(env: Env, body: JobMessage): Promise<void> {
  if (isEngineMessage(body)) {
    if (body.type === "run") return runBulkJob(env, body.jobId);
    if (body.type === "delivery") return deliverQueuedWebhook(env, body);
    if (body.type === "request_log") return storeQueuedRequestRecords(env, [body]);
    if (body.type === "dataset_refresh") return runRefreshMessage(env, body);
    if (body.type === "mail") return sendQueuedMail(env, body);
    if (body.type === "mail_notice") return mailAccountNotice(env, body);
    if (body.type === "self_service_mail") return sendSelfServiceMail(env, body);
    return runDueMonitor(env, body.monitorId, body.dueAt);
  }
  const handler = registeredProducts().find((p) => p.messages?.[body.type])?.messages?.[body.type];
  if (!handler) throw new Error(`no handler for queue message type ${body.type}`);
  return handler(env, body);
}

/**
 * Types whose messages of one delivered batch are handled together, in one D1 write: the request log's records and
 * products' batched types (email's shared mailbox answers).
 */
function batchedHandlers(): Map<string, BatchHandler> {
  const requestLog: BatchHandler = (env, bodies) => storeQueuedRequestRecords(env, bodies as RequestLogMessage[]);
  return new Map([["request_log", requestLog], ...productBatchHandlers()]);
}

/** One type's messages of the batch, handled at once; a failure retries them all. */
async function handleTogether(env: Env, type: string, messages: Message<JobMessage>[], handler: BatchHandler) {
  try {
    await handler(
      env,
      messages.map((m) => m.body),
    );
    for (const message of messages) message.ack();
  } catch (err) {
    console.error(JSON.stringify({ event: "job_message_failed", type, messages: messages.length, error: String(err) }));
    for (const message of messages) message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
  }
}

export async function handleJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  const batched = batchedHandlers();
  const together = new Map<string, Message<JobMessage>[]>();
  for (const message of batch.messages) {
    const type = message.body.type;
    if (batched.has(type)) together.set(type, [...(together.get(type) ?? []), message]);
  }
  for (const [type, messages] of together) await handleTogether(env, type, messages, batched.get(type)!);
  for (const message of batch.messages) {
    if (batched.has(message.body.type)) continue;
    try {
      await handle(env, message.body);
      message.ack();
    } catch (err) {
      console.error(
        JSON.stringify({
          event: "job_message_failed",
          message: message.id,
          type: message.body.type,
          error: String(err),
        }),
      );
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
}
