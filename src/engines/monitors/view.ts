import { database } from "../../db/client";
import { iso } from "../../db/listing";
import type { MonitorProduct } from "../product";
import { latestStatuses } from "../webhooks/outbox";
import type { MonitorRow } from "./store";

/** The monitor's latest webhook delivery outcome, as the monitor object shows it. */
export interface WebhookState {
  status: string | null;
  detail: string | null;
  url: string | null;
}

const NO_DELIVERY: WebhookState = { status: null, detail: null, url: null };

/**
 * The monitor object. The list is named by the product (`identifiers` for entity); the signing secret is never part
 * of it; `webhook_status`/`webhook_detail` are those of the monitor's latest delivery in the webhook outbox.
 */
export function monitorView(product: MonitorProduct, m: MonitorRow, webhook: WebhookState = NO_DELIVERY) {
  return {
    id: m.id,
    name: m.name,
    [product.monitor?.listField ?? "entries"]: m.entries,
    cadence: m.cadence,
    webhook_url: m.webhookUrl,
    webhook_events: m.webhookEvents,
    alert_emails: m.alertEmails,
    ...monitorOptions(product, m),
    // A new or removed URL starts with no delivery state, whatever the earlier URL's deliveries left behind.
    webhook_status: m.webhookUrl && webhook.url === m.webhookUrl ? webhook.status : null,
    webhook_detail: m.webhookUrl && webhook.url === m.webhookUrl ? webhook.detail : null,
    last_run_at: iso(m.lastRunAt),
    next_run_at: iso(m.nextRunAt),
    last_summary: m.lastSummary,
    created_at: iso(m.createdAt),
  };
}

/** The product's own options as the monitor holds them, each with its default when never given. */
export function monitorOptions(product: MonitorProduct, m: Pick<MonitorRow, "options">): Record<string, unknown> {
  const shapes = product.monitor?.options ?? {};
  return Object.fromEntries(
    Object.entries(shapes).map(([name, schema]) => [name, m.options?.[name] ?? schema.parse(undefined)]),
  );
}

/** The monitor object as the API answers it. */
export type MonitorView = ReturnType<typeof monitorView>;

/** Monitor objects for `rows`, reading their delivery states from the outbox. */
export async function monitorViews(env: Env, product: MonitorProduct, rows: MonitorRow[]): Promise<MonitorView[]> {
  const statuses = rows.length
    ? await latestStatuses(
        database(env),
        "monitor",
        rows.map((m) => String(m.id)),
      )
    : new Map<string, WebhookState>();
  return rows.map((m) => monitorView(product, m, statuses.get(String(m.id)) ?? NO_DELIVERY));
}

/** One monitor object with its delivery state. */
export async function viewOf(env: Env, product: MonitorProduct, row: MonitorRow): Promise<MonitorView> {
  const [view] = await monitorViews(env, product, [row]);
  return view!;
}
