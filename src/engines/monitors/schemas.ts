import { z } from "zod";
import type { MonitorShape, MonitorProduct } from "../product";
import { CHANGE_REASONS } from "./change-reason";

type Shape = MonitorShape<unknown, unknown>;

/**
 * One schema per shape for the isolate's life: each product's monitor routes name these in several route docs, and
 * building zod objects is a good part of the Worker's startup CPU (docs/architecture.md, "Cold start").
 */
const summaries = new WeakMap<Shape, ReturnType<typeof buildRunSummary>>();
const monitors = new WeakMap<MonitorProduct, ReturnType<typeof buildMonitor>>();

/** `last_summary` and a run's `summary`: fixed counts with the product's own tallies (entity: `found`). */
export function runSummarySchema(shape: Shape) {
  let schema = summaries.get(shape);
  if (!schema) summaries.set(shape, (schema = buildRunSummary(shape)));
  return schema;
}

/** The monitor object as `monitorView` builds it; the list field is named by the product. */
export function monitorSchema(product: MonitorProduct, shape: Shape) {
  // By product: a product has one monitor shape, and the list's items are the product's own input.
  let schema = monitors.get(product);
  if (!schema) monitors.set(product, (schema = buildMonitor(product, shape)));
  return schema;
}

function buildRunSummary(shape: Shape) {
  const tallies = Object.fromEntries(Object.keys(shape.tally ?? {}).map((name) => [name, z.int()]));
  return z.object({
    checked: z.int(),
    ...tallies,
    changed: z.int(),
    new_baselines: z.int(),
    credits_used: z.int(),
    stopped_reason: z.enum(["insufficient_credits", "key_spend_cap"]).nullable(),
  });
}

function buildMonitor(product: MonitorProduct, shape: Shape) {
  return z.object({
    id: z.int(),
    name: z.string(),
    [shape.listField]: z.array(product.input),
    cadence: z.enum(["weekly", "monthly"]),
    webhook_url: z.string().nullable(),
    webhook_events: z.enum(["changes", "every_run"]),
    alert_emails: z.boolean(),
    ...(shape.options ?? {}),
    webhook_status: z.enum(["pending", "delivered", "failed"]).nullable(),
    webhook_detail: z.string().nullable(),
    last_run_at: z.string().nullable(),
    next_run_at: z.string().nullable(),
    last_summary: runSummarySchema(shape).nullable(),
    created_at: z.string(),
  });
}

/** One entry whose answer moved away from its baseline, and why. */
export const entryChangesSchema = z.object({
  identifier: z.string(),
  input: z.unknown(),
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  reason: z
    .enum(CHANGE_REASONS)
    .nullable()
    .describe(
      "Why the entry changed: `recheck` (a fresh check answered differently), `feedback` (a bounce, complaint or " +
        "delivery report recorded for the value), `suppressed` (the value was suppressed), `dataset` (a dataset " +
        "update changed the answer: a source cited by both answers at another version), `partner` (a partner's " +
        "answer changed), or null when not known (a baseline recorded before runs kept what answers cite).",
    ),
});
