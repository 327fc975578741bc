import { and, eq, lte } from "drizzle-orm";
import { database } from "../src/db/client";
import { entityMonitors } from "../src/db/schema";
import type { JobMessage } from "../src/jobs/bulk-engine";
import { deliver } from "../src/platform/webhooks";
import { nextRunAfter } from "../src/products/entity/monitor";
import { runMonitor } from "../src/products/entity/monitor-run";
import { deliveryConfig } from "../src/routes/webhooks";

/** Cron: queue every monitor whose run is due. */
export async function queueDueMonitors(env: Env, now = Date.now()) {
  const due = await database(env)
    .select({ id: entityMonitors.id, nextRunAt: entityMonitors.nextRunAt })
    .from(entityMonitors)
    .where(lte(entityMonitors.nextRunAt, now))
    .limit(500);
  for (const m of due) await env.JOBS.send({ type: "monitor_run", monitorId: m.id, dueAt: m.nextRunAt } satisfies JobMessage);
  return due.length;
}

/**
 * Runs a due monitor once: the run is claimed by moving `next_run_at` on from the due time it was queued for, so a
 * redelivered or doubly queued message finds nothing to do.
 */
export async function runDueMonitor(env: Env, monitorId: number, dueAt: number, now = Date.now()) {
  const db = database(env);
  const monitor = await db.select().from(entityMonitors).where(eq(entityMonitors.id, monitorId)).get();
  if (!monitor) return;
  const [claimed] = await db
    .update(entityMonitors)
    .set({ nextRunAt: nextRunAfter(Math.max(dueAt, now), monitor.cadence) })
    .where(and(eq(entityMonitors.id, monitorId), eq(entityMonitors.nextRunAt, dueAt)))
    .returning();
  if (claimed) await runMonitor(env, claimed, now);
}

export async function deliverMonitorWebhook(env: Env, monitorId: number, body: string) {
  const db = database(env);
  const monitor = await db.select().from(entityMonitors).where(eq(entityMonitors.id, monitorId)).get();
  if (!monitor?.webhookUrl || !monitor.webhookSecret) return;
  const result = await deliver(monitor.webhookUrl, body, monitor.webhookSecret, deliveryConfig(env));
  await db
    .update(entityMonitors)
    .set({ webhookStatus: result.delivered ? "delivered" : "failed", webhookDetail: result.detail })
    .where(eq(entityMonitors.id, monitorId));
}
