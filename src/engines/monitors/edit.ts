import type { MonitorProduct } from "../product";
import { mintSecret } from "../webhooks/secret";
import { nextRunAfter, rescheduled, type Cadence, type WebhookEvents } from "./schedule";
import {
  deleteMonitor,
  insertMonitor,
  keepBaselines,
  updateMonitor,
  type MonitorChanges,
  type MonitorRow,
} from "./store";
import { monitorFamily, monitorShape } from "./run";

/** A new monitor as a request gives it; `entries` already validated by the product's input schema. */
export interface MonitorFields {
  name: string;
  entries: unknown[];
  cadence: Cadence;
  webhookUrl: string | null;
  webhookEvents: WebhookEvents;
  alertEmails: boolean;
  /** The product's own options (MonitorShape.options), validated. */
  options?: Record<string, unknown>;
}

/** A PATCH: absent fields stay as they are; `webhookUrl: null` removes the webhook. */
export type MonitorPatch = Partial<MonitorFields>;

/**
 * The row as it now stands, and the signing secret when this call minted one (returned once, never stored elsewhere).
 */
export interface Edited {
  row: MonitorRow;
  secret: string | null;
}

/** Creates a monitor owned by the key's account; the first run is one interval from now. */
export async function createMonitor(
  env: Env,
  product: MonitorProduct,
  owner: { accountId: string; keyId: string },
  fields: MonitorFields,
): Promise<Edited> {
  const now = Date.now();
  monitorShape(product);
  const secret = fields.webhookUrl ? mintSecret() : null;
  const row = await insertMonitor(env, {
    accountId: owner.accountId,
    keyId: owner.keyId,
    product: monitorFamily(product),
    name: fields.name,
    entries: fields.entries,
    cadence: fields.cadence,
    webhookUrl: fields.webhookUrl,
    webhookSecret: secret,
    webhookEvents: fields.webhookEvents,
    alertEmails: fields.alertEmails,
    options: fields.options ?? null,
    nextRunAt: nextRunAfter(now, fields.cadence),
    createdAt: now,
  });
  return { row, secret };
}

/**
 * PATCH rules 2-5: a new list keeps the baselines of entries that stay and drops the rest; a cadence change takes the
 * earlier of the scheduled run and last run + new interval; a different URL mints a new secret, the same URL keeps
 * it, null removes it. Nothing is queued. Fields given with their current values change nothing.
 */
export async function patchMonitor(
  env: Env,
  product: MonitorProduct,
  monitor: MonitorRow,
  patch: MonitorPatch,
): Promise<Edited> {
  const shape = monitorShape(product);
  const changes: MonitorChanges = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.webhookEvents !== undefined) changes.webhookEvents = patch.webhookEvents;
  if (patch.alertEmails !== undefined) changes.alertEmails = patch.alertEmails;
  if (patch.options && Object.keys(patch.options).length)
    changes.options = { ...(monitor.options ?? {}), ...patch.options };
  if (patch.cadence !== undefined && patch.cadence !== monitor.cadence) {
    changes.cadence = patch.cadence;
    changes.nextRunAt = rescheduled(monitor, patch.cadence);
  }
  let secret: string | null = null;
  if (patch.webhookUrl === null) Object.assign(changes, { webhookUrl: null, webhookSecret: null });
  else if (patch.webhookUrl !== undefined && patch.webhookUrl !== monitor.webhookUrl) {
    secret = mintSecret();
    Object.assign(changes, { webhookUrl: patch.webhookUrl, webhookSecret: secret });
  }
  if (patch.entries !== undefined) {
    changes.entries = patch.entries;
    await keepBaselines(
      env,
      monitor.id,
      patch.entries.map((entry) => shape.entryKey(entry)),
    );
  }
  const row = Object.keys(changes).length ? await updateMonitor(env, monitor.id, changes) : monitor;
  return { row: row ?? monitor, secret };
}

/** Deletes a monitor and its baselines. */
export const removeMonitor = (env: Env, monitor: MonitorRow): Promise<void> => deleteMonitor(env, monitor.id);
