import type { Product } from "../product";

/**
 * The events a set of products posts (spec, "Events"), derived from what each declares: `bulk_<name>_job.finished` for
 * a bulk shape, its own sample events (email's `email.settled`), `<family>_monitor.run` for its monitors and then its
 * companions'. Bodies are built by their owners (the bulk engine, monitors, settled callbacks) and frozen in the
 * outbox; test deliveries use the same builders (samples.ts).
 */
export function eventNames(products: readonly Product[]): string[] {
  const monitorEvent = (p: Product) => (p.monitor ? [`${p.monitor.family ?? p.name}_monitor.run`] : []);
  return [
    ...products.filter((p) => p.bulk).map((p) => `bulk_${p.name}_job.finished`),
    ...products.flatMap((p) => Object.keys(p.sampleEvents ?? {})),
    ...products.flatMap(monitorEvent),
    ...products.flatMap((p) => (p.companions ?? []).flatMap(monitorEvent)),
  ];
}

/** One of the event names in EVENTS. */
export type EventName = string;

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
