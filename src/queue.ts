import type { RequestLogMessage } from "./db/request-log";
import type { RunMessage } from "./engines/bulk/messages";
import type { RefreshMessage } from "./engines/datasets/refreshable";
import type { NoticeMessage } from "./engines/mail/notices";
import type { MailQueueMessage } from "./engines/mail/outbox";
import type { MonitorMessage } from "./engines/monitors/messages";
import type { DeliveryMessage } from "./engines/webhooks/outbox";
import { registeredProducts } from "./products/registry";
import { runBulkJob } from "../workers/bulk-runner";
import { deliverQueuedWebhook } from "../workers/deliveries";
import { runRefreshMessage } from "../workers/dataset-refresh";
import { mailAccountNotice, sendQueuedMail } from "../workers/mail";
import { runDueMonitor } from "../workers/monitors";
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
  | NoticeMessage;
export type JobMessage = EngineMessage | { type: string };

const isEngineMessage = (body: JobMessage): body is EngineMessage =>
  ["run", "delivery", "monitor_run", "request_log", "dataset_refresh", "mail", "mail_notice"].includes(body.type);

/** Message type -> handler. Every handler is idempotent, so a retried batch is harmless. */
async function handle(env: Env, body: JobMessage): Promise<void> {
  if (isEngineMessage(body)) {
    if (body.type === "run") return runBulkJob(env, body.jobId);
    if (body.type === "delivery") return deliverQueuedWebhook(env, body);
    if (body.type === "request_log") return storeQueuedRequestRecords(env, [body]);
    if (body.type === "dataset_refresh") return runRefreshMessage(env, body);
    if (body.type === "mail") return sendQueuedMail(env, body);
    if (body.type === "mail_notice") return mailAccountNotice(env, body);
    return runDueMonitor(env, body.monitorId, body.dueAt);
  }
  const handler = registeredProducts().find((p) => p.messages?.[body.type])?.messages?.[body.type];
  if (!handler) throw new Error(`no handler for queue message type ${body.type}`);
  return handler(env, body);
}

const isRequestLog = (message: Message<JobMessage>): message is Message<RequestLogMessage> =>
  message.body.type === "request_log";

/** The batch's request records, all of its `request_log` messages, in one D1 statement; a failure retries them all. */
async function storeRequestLogs(env: Env, messages: Message<RequestLogMessage>[]): Promise<void> {
  if (!messages.length) return;
  try {
    await storeQueuedRequestRecords(
      env,
      messages.map((m) => m.body),
    );
    for (const message of messages) message.ack();
  } catch (err) {
    console.error(
      JSON.stringify({
        event: "job_message_failed",
        type: "request_log",
        messages: messages.length,
        error: String(err),
      }),
    );
    for (const message of messages) message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
  }
}

export async function handleJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  await storeRequestLogs(env, batch.messages.filter(isRequestLog));
  for (const message of batch.messages) {
    if (isRequestLog(message)) continue;
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
