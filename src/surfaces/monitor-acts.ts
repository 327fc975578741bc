import { manualRunRefusal } from "../engines/monitors/bounds";
import { monitorFamily, runMonitor } from "../engines/monitors/run";
import { findMonitor, pageMonitors } from "../engines/monitors/store";
import { monitorViews, viewOf } from "../engines/monitors/view";
import type { Product } from "../engines/product";
import { PER_PAGE } from "../http/time";
import { answered, notFoundError, scopeRefusal, type ActOutcome, type KeyAct } from "./key-act";

/** The monitors the key's account owns of this product (or family): another account's are not found. */
const ownerOf = (act: KeyAct, product: Product) => ({
  accountId: act.principal.accountId,
  keyId: act.principal.keyId,
  product: monitorFamily(product),
});

/** The key's account's monitor, or null (another account's or another product's monitor too). */
export async function ownMonitor(act: KeyAct, product: Product, monitorId: number) {
  return (await findMonitor(act.env, ownerOf(act, product), monitorId)) ?? null;
}

/** `GET /{product}/monitors` and `list_monitors`: one page of the account's monitors, newest first. */
export async function listMonitors(act: KeyAct, product: Product, page: number): Promise<ActOutcome> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const { rows, total } = await pageMonitors(act.env, ownerOf(act, product), page, PER_PAGE);
  return answered({ monitors: await monitorViews(act.env, product, rows) }, { page, per_page: PER_PAGE, total });
}

/** `GET /{product}/monitors/{monitorId}`: the monitor, its schedule and last run. */
export async function readMonitor(act: KeyAct, product: Product, monitorId: number): Promise<ActOutcome> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const row = await ownMonitor(act, product, monitorId);
  return row ? answered({ monitor: await viewOf(act.env, product, row) }) : notFoundError("Monitor");
}

/**
 * `POST /{product}/monitors/{monitorId}/run` and `run_monitor`: the whole list through the paid walk now, billed to
 * the monitor's key like a batch; the run's summary, changes and the monitor. At most MONITOR_BOUNDS.runsPerDay runs
 * asked by hand a day per account (RATE_LIMITED past it, nothing run).
 */
export async function runMonitorNow(
  act: KeyAct,
  product: Product,
  run: { monitorId: number; refresh: boolean },
): Promise<ActOutcome> {
  const scope = scopeRefusal(act.principal, product.scope);
  if (scope) return scope;
  const row = await ownMonitor(act, product, run.monitorId);
  if (!row) return notFoundError("Monitor");
  const limited = await manualRunRefusal(act.env, row.accountId);
  if (limited) return { ok: false, error: limited };
  const { monitor, summary, changes, flags } = await runMonitor(act.env, product, row, { refresh: run.refresh });
  const data = { monitor: await viewOf(act.env, product, monitor), summary, changes, ...(flags ? { flags } : {}) };
  return { ...answered(data), creditsUsed: summary.credits_used } as ActOutcome;
}
