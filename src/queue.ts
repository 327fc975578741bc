import type { RunMessage } from "./engines/bulk/messages";
import type { MonitorMessage } from "./engines/monitors/messages";
import type { DeliveryMessage } from "./engines/webhooks/outbox";
import type { RecheckMessage } from "./products/email/settle";
import { runBulkJob } from "../workers/bulk-runner";
import { runDueMonitor } from "../workers/monitors";
import { attemptDelivery } from "./engines/webhooks/outbox";
import { recheck } from "./products/email/settle";

export type JobMessage = RunMessage | DeliveryMessage | MonitorMessage | RecheckMessage;

/** Message type -> handler. Every handler is idempotent, so a retried batch is harmless. */
async function handle(env: Env, body: JobMessage): Promise<void> {
  switch (body.type) {
    case "run":
      return runBulkJob(env, body.jobId);
    case "delivery":
      return attemptDelivery(env, body.deliveryId, body.attempt);
    case "monitor_run":
      return runDueMonitor(env, body.monitorId, body.dueAt);
    case "recheck":
      return recheck(env, body);
  }
}

export async function handleJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await handle(env, message.body);
      message.ack();
    } catch (err) {
      console.error(JSON.stringify({ event: "job_message_failed", message: message.id, type: message.body.type, error: String(err) }));
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
}
