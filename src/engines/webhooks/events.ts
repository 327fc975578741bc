/**
 * The events the service posts (spec, "Events"). Bodies are built by their owners (the bulk engine, monitors, settled
 * callbacks) and frozen in the outbox; test deliveries use the same builders (samples.ts).
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
  "email_domain_monitor.run",
] as const;

/** One of the event names in EVENTS. */
export type EventName = (typeof EVENTS)[number];

const BULK_EVENT = /^bulk_([a-z]+)_job\.finished$/;

/** The product of a `bulk_<product>_job.finished` event; null for every other event. */
export function bulkEventProduct(event: EventName): string | null {
  return BULK_EVENT.exec(event)?.[1] ?? null;
}

const MONITOR_EVENT = /^([a-z_]+)_monitor\.run$/;

/** The monitor family of a `<family>_monitor.run` event (`email`, `email_domain`, ...); null for every other event. */
export function monitorEventProduct(event: EventName): string | null {
  return MONITOR_EVENT.exec(event)?.[1] ?? null;
}
