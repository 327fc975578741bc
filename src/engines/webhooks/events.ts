/**
 * The events the service posts (spec, "Events") and the fixed sample body of each for test deliveries. Real bodies
 * are built by their owners (the bulk engine, monitors, settled callbacks) and frozen in the outbox.
 */
export const EVENTS = [
  "bulk_email_job.finished",
  "bulk_phone_job.finished",
  "bulk_ip_job.finished",
  "bulk_address_job.finished",
  "bulk_consistency_job.finished",
  "email.settled",
  "email_monitor.run",
  "phone_monitor.run",
  "ip_monitor.run",
  "address_monitor.run",
  "entity_monitor.run",
] as const;

/** One of the event names in EVENTS. */
export type EventName = (typeof EVENTS)[number];

const BULK_EVENT = /^bulk_([a-z]+)_job\.finished$/;

/** The product of a `bulk_<product>_job.finished` event; null for every other event. */
export function bulkEventProduct(event: EventName): string | null {
  return BULK_EVENT.exec(event)?.[1] ?? null;
}

const AT = "2026-01-01T00:00:00.000Z";

/**
 * The fixed sample body of a test delivery; it starts with `"test":true` and copies nothing from the request.
 * A `bulk_<product>_job.finished` body carries that product's counters (passed in, so this module needs no product
 * registry); its `total` and `processed` are `rows` when a row adds to several counters (phone), else their sum, so
 * the sample is self-consistent. Other events ignore them.
 */
export function sampleBody(event: EventName, counters: Record<string, number>, rows?: number): string {
  if (bulkEventProduct(event) !== null) {
    const total = rows ?? Object.values(counters).reduce((sum, n) => sum + n, 0);
    const job = { id: 1, status: "completed", total, processed: total, ...counters, credits_used: 1, stopped_reason: null, finished_at: AT };
    return JSON.stringify({ test: true, event, job });
  }
  if (event === "email.settled") {
    const data = { email: "deliverable@service.test", deliverable: "deliverable", reason: null };
    const meta = { credits_used: 0, credits_remaining: 0, cache_hit: false, fair_use_billed: false };
    return JSON.stringify({ test: true, event, request_id: "req_test", settled: true, attempt: 1, data, meta });
  }
  const monitor = { id: 1, name: "Test monitor", cadence: "weekly", last_run_at: AT, next_run_at: "2026-01-08T00:00:00.000Z" };
  // A phone monitor's run body adds `flags` (spec, "Bodies" 2): empty when nothing was newly flagged.
  const flags = event === "phone_monitor.run" ? { flags: {} } : {};
  return JSON.stringify({ test: true, event, monitor, summary: { checked: 1, changed: 0 }, changes: [], ...flags });
}
