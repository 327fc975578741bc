import { and, eq, gte, inArray, isNotNull, lt, max, ne, notInArray, or } from "drizzle-orm";
import { chunks } from "../../db/chunks";
import { database, type Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";
import { dropBodies } from "./body-store";

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

/** A settled monitor delivery keeps its body this long (for a look at what was sent), then only its record stays. */
export const SETTLED_MONITOR_BODY_MS = 3_600_000;

/**
 * Empties the bodies of monitor deliveries settled (delivered or failed) over SETTLED_MONITOR_BODY_MS ago, and deletes
 * their R2 objects: a monitor's delivery is never sent again once settled (no redelivery), and its record (status,
 * detail) stays for the retention window. Run every five minutes over the last `lookBackMs` of settlements (the daily
 * sweep passes no bound). A run's body is otherwise up to a few megabytes kept 30 days, whatever the run cost. Returns
 * how many bodies were dropped.
 */
export async function dropSettledMonitorBodies(env: Env, now: number, lookBackMs?: number): Promise<number> {
  const db = database(env);
  const settledBefore = now - SETTLED_MONITOR_BODY_MS;
  const settled = and(
    inArray(webhookDeliveries.status, ["delivered", "failed"]),
    lt(webhookDeliveries.updatedAt, settledBefore),
    lookBackMs === undefined ? undefined : gte(webhookDeliveries.updatedAt, settledBefore - lookBackMs),
    eq(webhookDeliveries.owner, "monitor"),
    or(ne(webhookDeliveries.body, ""), isNotNull(webhookDeliveries.bodyKey)),
  );
  const rows = await db
    .select({ id: webhookDeliveries.id, key: webhookDeliveries.bodyKey })
    .from(webhookDeliveries)
    .where(settled);
  for (const ids of chunks(rows.map((row) => row.id)))
    await db
      .update(webhookDeliveries)
      .set({ body: "", bodyKey: null })
      .where(and(settled, inArray(webhookDeliveries.id, ids)));
  // After the rows: a row never names a deleted object (an orphaned object is harmless).
  await dropBodies(
    env,
    rows.flatMap((row) => (row.key ? [row.key] : [])),
  );
  return rows.length;
}
