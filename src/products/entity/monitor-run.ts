import { and, eq, notInArray } from "drizzle-orm";
import { database } from "../../db/client";
import { apiKeys, entityBaselines, entityMonitors } from "../../db/schema";
import { ApiError } from "../../http/errors";
import type { JobMessage } from "../../jobs/bulk-engine";
import { lookupEntities, type EntityItem } from "./lookup";
import { compare, shouldPost, type Change, type Observed, type RunSummary } from "./monitor";

export type MonitorRow = typeof entityMonitors.$inferSelect;

/** A monitored entry's identity as given: an LEI string, or `type:COUNTRY:IDENTIFIER` (case and spaces folded). */
export function entryKey(item: EntityItem): string {
  if (typeof item === "string") return `lei::${item.trim().toUpperCase()}`;
  return `${item.type ?? "lei"}:${(item.country ?? "").trim().toUpperCase()}:${item.identifier.trim().toUpperCase().replace(/\s+/g, "")}`;
}

/** PATCH rule 2: entries no longer listed lose their baseline; entries that stay keep theirs. */
export async function dropRemovedBaselines(env: Env, monitorId: number, items: EntityItem[]) {
  const keep = [...new Set(items.map(entryKey))];
  await database(env)
    .delete(entityBaselines)
    .where(and(eq(entityBaselines.monitorId, monitorId), ...(keep.length ? [notInArray(entityBaselines.entryKey, keep)] : [])));
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface MonitorRunResult {
  summary: RunSummary;
  changes: { identifier: string; input: EntityItem; changes: Change[] }[];
  body: string;
}

/**
 * Runs one monitor now: looks every entry up (billed like a batch), compares each with its baseline (status, flags,
 * name, found), records the new baselines (a new entry's first run only sets one), stores the summary, and queues
 * `entity_monitor.run` when `webhook_events` asks for it.
 */
export async function runMonitor(env: Env, monitor: MonitorRow, now = Date.now()): Promise<MonitorRunResult> {
  const db = database(env);
  const items = monitor.identifiers as EntityItem[];
  const key = await db.select({ cap: apiKeys.dailyCreditCap }).from(apiKeys).where(eq(apiKeys.id, monitor.keyId)).get();
  const payer = { accountId: monitor.accountId, keyId: monitor.keyId, dailyCreditCap: key?.cap ?? null };
  const operationId = `monitor:${monitor.id}:${now}`;
  let run;
  try {
    run = await lookupEntities(env, payer, items, { requestId: operationId, operationId, now });
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== "INSUFFICIENT_CREDITS" && err.code !== "KEY_SPEND_CAP_REACHED")) throw err;
    run = { items: [], found: 0, creditsUsed: 0, stoppedReason: err.code === "KEY_SPEND_CAP_REACHED" ? ("key_spend_cap" as const) : ("insufficient_credits" as const) };
  }
  const stored = await db.select().from(entityBaselines).where(eq(entityBaselines.monitorId, monitor.id));
  const baselines = new Map(stored.map((b) => [b.entryKey, b.answer as Observed]));
  const changes: MonitorRunResult["changes"] = [];
  let newBaselines = 0;
  const writes = run.items.map((item) => {
    const observed: Observed = { found: item.data.found, name: item.data.name, status: item.data.status, flags: item.data.flags };
    const entry = entryKey(item.input);
    const baseline = baselines.get(entry);
    if (!baseline) newBaselines++;
    else {
      const found = compare(baseline, observed);
      if (found.length) changes.push({ identifier: item.data.identifier, input: item.input, changes: found });
    }
    return db
      .insert(entityBaselines)
      .values({ monitorId: monitor.id, entryKey: entry, answer: observed, recordedAt: now })
      .onConflictDoUpdate({ target: [entityBaselines.monitorId, entityBaselines.entryKey], set: { answer: observed, recordedAt: now } });
  });
  const summary: RunSummary = {
    checked: run.items.length,
    found: run.found,
    changed: changes.length,
    new_baselines: newBaselines,
    credits_used: run.creditsUsed,
    stopped_reason: run.stoppedReason,
  };
  const [first, ...rest] = writes;
  if (first) await db.batch([first, ...rest]);
  const [updated] = await db.update(entityMonitors).set({ lastRunAt: now, lastSummary: { ...summary } }).where(eq(entityMonitors.id, monitor.id)).returning();
  const current = updated ?? monitor;
  const body = JSON.stringify({
    event: "entity_monitor.run",
    monitor: { id: current.id, name: current.name, cadence: current.cadence, last_run_at: iso(current.lastRunAt), next_run_at: iso(current.nextRunAt) },
    summary,
    changes,
  });
  if (current.webhookUrl && shouldPost(current.webhookEvents, summary)) {
    await db.update(entityMonitors).set({ webhookStatus: "pending", webhookDetail: null }).where(eq(entityMonitors.id, monitor.id));
    await env.JOBS.send({ type: "monitor_webhook", monitorId: monitor.id, body } satisfies JobMessage);
  }
  return { summary, changes, body };
}
