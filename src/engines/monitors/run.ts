import { storedPayer } from "../credits/payer";
import type { MonitorShape, MonitorProduct, WalkOptions } from "../product";
import { walk, type WalkItem } from "../walk/walk";
import { enqueueDelivery } from "../webhooks/outbox";
import { queueMonitorAlert } from "./alert-mail";
import { shouldPost } from "./schedule";
import {
  changeReason,
  PROVENANCE_KEY,
  provenanceOf,
  sourceKindsOf,
  splitBaseline,
  type SourceKinds,
} from "./change-reason";
import { recordRun, storedBaselines, type Baseline, type MonitorRow } from "./store";
import { iso } from "../../db/listing";
import type { EntryChanges, RunSummary } from "./run-summary";

export type { EntryChanges, RunSummary } from "./run-summary";

/**
 * A monitor run reads each entry like a batch does: billed per fresh answer, repeats within 7 days free, suppressed
 * values answered from the stored answer, stopping where credits or the key's daily cap run out.
 */
const RUN_OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: true, extra: {} };

/** Each entry (by label) that raised change flags in this run, with its flags; only for products with `flags`. */
export type RunFlags = Record<string, string[]>;

/** What a run answers: the monitor as it now stands, the summary, the changed entries and the body it posts. */
export interface MonitorRunResult {
  monitor: MonitorRow;
  summary: RunSummary;
  changes: EntryChanges[];
  /** Present when the product flags entries (phone), `{}` when none raised a flag. */
  flags?: RunFlags;
  /** The `<product>_monitor.run` body, exactly as posted when the run is posted. */
  body: string;
}

/** The product's monitor shape; a product without one never gets monitor routes or rows. */
export function monitorShape<In, Out>(product: MonitorProduct<In, Out>): MonitorShape<In, Out> {
  if (!product.monitor) throw new Error(`product ${product.name} has no monitor shape`);
  return product.monitor;
}

/** The name a product's monitors go by: its own, or its monitor shape's `family` (email's domain monitors). */
export const monitorFamily = (product: { name: string; monitor?: { family?: string } }) =>
  product.monitor?.family ?? product.name;

/** `<family>_monitor.run`. */
export const runEvent = (product: Parameters<typeof monitorFamily>[0]) => `${monitorFamily(product)}_monitor.run`;

interface Compared {
  baselines: Baseline[];
  changes: EntryChanges[];
  flags: RunFlags;
  newBaselines: number;
}

/**
 * Compares each answered entry with its baseline. An entry listed twice is one monitored entry: it is compared and
 * recorded once. An entry without a baseline only records one (PATCH rule 2: its first run sets it).
 */
function compareItems<In, Out>(
  shape: MonitorShape<In, Out>,
  items: WalkItem<In, Out>[],
  stored: Map<string, Record<string, unknown>>,
  kinds: SourceKinds,
): Compared {
  const out: Compared = { baselines: [], changes: [], flags: {}, newBaselines: 0 };
  const seen = new Set<string>();
  for (const item of items) {
    const entryKey = shape.entryKey(item.input);
    if (seen.has(entryKey)) continue;
    seen.add(entryKey);
    const answer = shape.observe(item.data);
    const provenance = provenanceOf(item.data, item.meta.suppressed);
    const kept = stored.get(entryKey);
    out.baselines.push({ entryKey, answer: { ...answer, [PROVENANCE_KEY]: provenance } });
    if (!kept) out.newBaselines++;
    else {
      const { answer: baseline, provenance: before } = splitBaseline(kept);
      const changes = shape.compare(baseline, answer);
      const reason = changeReason(before, provenance, kinds);
      if (changes.length) out.changes.push({ identifier: shape.label(item.data), input: item.input, changes, reason });
      const raised = shape.flags?.(baseline, answer) ?? [];
      if (raised.length) out.flags[shape.label(item.data)] = raised;
    }
  }
  return out;
}

/** The product's tallies over every answered item (an entry listed twice counts twice, as in `checked`). */
const tallies = <In, Out>(shape: MonitorShape<In, Out>, items: WalkItem<In, Out>[]) =>
  Object.fromEntries(
    Object.entries(shape.tally ?? {}).map(([name, holds]) => [name, items.filter((item) => holds(item.data)).length]),
  );

/**
 * The posted body: `{event, monitor: {id, name, cadence, last_run_at, next_run_at}, summary, changes}`, plus `flags`
 * when the product flags.
 */
export function runBody(
  product: Parameters<typeof monitorFamily>[0],
  monitor: Pick<MonitorRow, "id" | "name" | "cadence" | "lastRunAt" | "nextRunAt">,
  ran: { summary: RunSummary; changes: EntryChanges[]; flags?: RunFlags | undefined },
): string {
  const { id, name, cadence } = monitor;
  const { summary, changes, flags } = ran;
  return JSON.stringify({
    event: runEvent(product),
    monitor: { id, name, cadence, last_run_at: iso(monitor.lastRunAt), next_run_at: iso(monitor.nextRunAt) },
    summary,
    changes,
    ...(flags ? { flags } : {}),
  });
}

export interface RunOptions {
  /** The run's clock (default now): its operation id and what "7 days" counts from. */
  now?: number;
  /**
   * Look every entry up again, billed as fresh, instead of answering a repeat from the 7-day window: a run asked to
   * refresh re-checks (a partner's delivery point gone since the last run is seen), as a batch with `refresh` does.
   */
  refresh?: boolean;
}

/**
 * Runs one monitor now, without moving its schedule: walks its entries (the ledger and operation id
 * `monitor:{id}:{now}`, so a retried run is charged once), compares each answer with its baseline, records the new
 * baselines and the summary, and queues `<product>_monitor.run` in the webhook outbox when `webhook_events` asks (and,
 * with `alert_emails`, the same run's alert email to the account's members). A run whose first entry cannot be paid is
 * a run that stopped early with nothing checked.
 */
export async function runMonitor<In, Out>(
  env: Env,
  product: MonitorProduct<In, Out>,
  monitor: MonitorRow,
  { now = Date.now(), refresh = false }: RunOptions = {},
): Promise<MonitorRunResult> {
  const shape = monitorShape(product);
  const payer = await storedPayer(env, monitor.accountId, monitor.keyId);
  const operationId = `monitor:${monitor.id}:${now}`;
  const inputs = monitor.entries as In[];
  const run = await walk(product, {
    env,
    payer,
    requestId: operationId,
    operationId,
    inputs,
    options: { ...RUN_OPTIONS, refresh, extra: monitor.options ?? {} },
    now,
  });
  const stored = await storedBaselines(env, monitor.id);
  const compared = compareItems(shape, run.items, stored, sourceKindsOf(product));
  const summary: RunSummary = {
    checked: run.items.length,
    ...tallies(shape, run.items),
    changed: compared.changes.length,
    new_baselines: compared.newBaselines,
    credits_used: run.creditsUsed,
    stopped_reason: run.stoppedReason ?? run.refused,
  };
  const ran = { baselines: compared.baselines, summary: { ...summary }, now, changes: compared.changes };
  const current = (await recordRun(env, monitor.id, ran)) ?? { ...monitor, lastRunAt: now };
  const flags = shape.flags ? compared.flags : undefined;
  const body = runBody(product, current, { summary, changes: compared.changes, flags });
  if (current.webhookUrl && current.webhookSecret && shouldPost(current.webhookEvents, summary)) {
    const delivery = {
      owner: "monitor" as const,
      ownerId: String(current.id),
      event: runEvent(product),
      url: current.webhookUrl,
      secret: current.webhookSecret,
      body,
    };
    await enqueueDelivery(env, delivery);
  }
  if (current.alertEmails && shouldPost(current.webhookEvents, summary)) {
    // The monitor's row on the dashboard's monitors page: a browser link that works signed in, unlike the API's URL.
    const base = env.MAIL_BASE_URL.replace(/\/+$/, "");
    const link = `${base}/dashboard/monitors#monitor-${monitorFamily(product)}-${current.id}`;
    const alert = { summary, changes: compared.changes, ranAt: now };
    await queueMonitorAlert(env, { family: monitorFamily(product), link }, current, alert);
  }
  return { monitor: current, summary, changes: compared.changes, ...(flags ? { flags } : {}), body };
}
