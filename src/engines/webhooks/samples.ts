import { finishedBody } from "../bulk/run";
import { runBody, type RunSummary } from "../monitors/run";
import type { Product } from "../product";
import { bulkEventProduct, monitorEventProduct, type EventName } from "./events";

const AT = Date.parse("2026-01-01T00:00:00.000Z");
const WEEK_MS = 7 * 86_400_000;
/** Counters of a product that is not registered yet: the email shape. */
const FALLBACK_COUNTS: Record<string, number> = { deliverable: 1, risky: 0, undeliverable: 1 };

/** The registry's lookups, passed in so this engine imports no product. */
export interface SampleProducts {
  productNamed(name: string): Product | undefined;
  /** The product whose monitors carry this family name (`email_domain` for domain monitors). */
  monitoredProduct(family: string): Product | undefined;
}

const asTest = (body: string) => JSON.stringify({ test: true, ...(JSON.parse(body) as Record<string, unknown>) });

/**
 * The fixed body of a test delivery (spec, POST /webhooks/test rule 1): built by the same functions as the real
 * delivery of that event, from fixed sample values, with `"test":true` first. Nothing comes from the request.
 */
export function sampleBody(event: EventName, products: SampleProducts): string {
  const { productNamed, monitoredProduct } = products;
  const bulk = bulkEventProduct(event);
  if (bulk !== null) {
    const shape = productNamed(bulk)?.bulk;
    const counts = shape?.sampleCounts ?? FALLBACK_COUNTS;
    // A row may add to several counters (phone, address): such a product says how many rows its sample has.
    const total = shape?.sampleTotal ?? Object.values(counts).reduce((sum, n) => sum + n, 0);
    const job = {
      id: 1,
      product: bulk,
      status: "completed" as const,
      total,
      processed: total,
      counts,
      creditsUsed: 1,
      stoppedReason: null,
      finishedAt: AT,
    };
    return asTest(finishedBody(job));
  }
  const monitored = monitorEventProduct(event);
  if (monitored !== null) {
    const product = monitoredProduct(monitored);
    const tallies = Object.fromEntries(Object.keys(product?.monitor?.tally ?? {}).map((name) => [name, 1]));
    const summary: RunSummary = {
      checked: 1,
      ...tallies,
      changed: 0,
      new_baselines: 1,
      credits_used: 1,
      stopped_reason: null,
    };
    const monitor = { id: 1, name: "Test monitor", cadence: "weekly" as const, lastRunAt: AT, nextRunAt: AT + WEEK_MS };
    // A product that flags entries (phone) posts `flags`, empty when nothing was newly flagged.
    return asTest(
      runBody(product ?? { name: monitored }, monitor, {
        summary,
        changes: [],
        flags: product?.monitor?.flags ? {} : undefined,
      }),
    );
  }
  const [, product] = /^([a-z]+)\./.exec(event) ?? [];
  const own = product ? productNamed(product)?.sampleEvents?.[event] : undefined;
  if (!own) throw new Error(`no sample body for ${event}`);
  return asTest(own());
}
