import { and, lt, max, ne, notInArray, or, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";

/** Delivery records (and the secrets they carry) are kept as long as the runs they report: 30 days. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * Daily sweep: settled records older than the window go, except each monitor's latest one, which is what its
 * `webhook_status` shows until the next run (a monthly monitor posts less often than the window).
 */
export function sweepDeliveries(db: Database, now: number) {
  const latestOfMonitors = db
    .select({ id: max(webhookDeliveries.id) })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.owner, "monitor"))
    .groupBy(webhookDeliveries.ownerId);
  return db
    .delete(webhookDeliveries)
    .where(
      and(
        lt(webhookDeliveries.updatedAt, now - DELIVERY_RETENTION_DAYS * 86_400_000),
        ne(webhookDeliveries.status, "pending"),
        or(ne(webhookDeliveries.owner, "monitor"), notInArray(webhookDeliveries.id, latestOfMonitors)),
      ),
    );
}
