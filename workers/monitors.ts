import type { MonitorMessage } from "../src/engines/monitors/messages";
import { runMonitor } from "../src/engines/monitors/run";
import { nextRunAfter } from "../src/engines/monitors/schedule";
import { claimDue, dueMonitors, monitorById } from "../src/engines/monitors/store";
import { monitoredProduct } from "../src/products/registry";

// One cron tick queues at most this many; the rest are still due at the next tick.
const DUE_PER_TICK = 500;
// Queues take at most 100 messages per sendBatch call.
const MESSAGES_PER_SEND = 100;

/** Cron: queues a `monitor_run` for every monitor whose run is due, with the due time it is queued for. */
export async function queueDueMonitors(env: Env, now = Date.now()): Promise<number> {
  const due = await dueMonitors(env, now, DUE_PER_TICK);
  const messages = due.map((m) => ({
    body: { type: "monitor_run", monitorId: m.id, dueAt: m.nextRunAt } satisfies MonitorMessage,
  }));
  for (let i = 0; i < messages.length; i += MESSAGES_PER_SEND)
    await env.JOBS.sendBatch(messages.slice(i, i + MESSAGES_PER_SEND));
  return due.length;
}

/**
 * Queue: runs a due monitor once. The run is claimed by moving `next_run_at` on from the due time it was queued for,
 * so a redelivered or doubly queued message (or one overtaken by a PATCH of the cadence) finds nothing to do.
 */
export async function runDueMonitor(env: Env, monitorId: number, dueAt: number, now = Date.now()): Promise<void> {
  const monitor = await monitorById(env, monitorId);
  if (!monitor) return;
  const product = monitoredProduct(monitor.product);
  if (!product?.monitor) {
    console.error(
      JSON.stringify({ event: "monitor_product_unknown", monitor_id: monitorId, product: monitor.product }),
    );
    return;
  }
  const claimed = await claimDue(env, monitorId, dueAt, nextRunAfter(Math.max(dueAt, now), monitor.cadence));
  if (claimed) await runMonitor(env, product, claimed, { now });
}
