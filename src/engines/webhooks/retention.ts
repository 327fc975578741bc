import { and, lt, max, ne, notInArray, or, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";

/** Delivery records (and the secrets they carry) are kept as long as the runs they report: 30 days. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * Daily sweep: settled records older than the window go, except each monitor's latest one, which is what its
 * `webhook_status` shows until the next run (a monthly monitor posts less often than the window).
 */
export function sweepDeliveries(db: Database, now: number) {
  return db.delete(webhookDeliveries).where(swept(db, now));
}

/** The R2 keys of the bodies the sweep at `now` removes rows for: read before it, deleted after it. */
export async function sweptBodyKeys(db: Database, now: number): Promise<string[]> {
  const rows = await db
    .select({ key: webhookDeliveries.bodyKey })
    .from(webhookDeliveries)
    .where(and(swept(db, now), isNotNull(webhookDeliveries.bodyKey)));
  return rows.flatMap((row) => (row.key ? [row.key] : []));
}

function swept(db: Database, now: number) {
  const latestOfMonitors = db
    .select({ id: max(webhookDeliveries.id) })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.owner, "monitor"))
    .groupBy(webhookDeliveries.ownerId);
  return and(
    lt(webhookDeliveries.updatedAt, now - DELIVERY_RETENTION_DAYS * 86_400_000),
    ne(webhookDeliveries.status, "pending"),
    or(ne(webhookDeliveries.owner, "monitor"), notInArray(webhookDeliveries.id, latestOfMonitors)),
  );
}
