import type { LedgerRow } from "../../../durable-objects/account-object";

/** What made a ledger row, and the dashboard page that shows it. */
export interface LedgerLink {
  kind: "request" | "bulk_run" | "monitor_run" | "payment";
  href: string;
  label: string;
}

const BULK = /^bulk:(\d+):\d+$/;
const MONITOR = /^monitor:(\d+):(\d+)$/;
const RECHECK = /^(.+):recheck\d+$/;

/** A request's page: the usage page's lookup by id. */
const requestPage = (id: string): LedgerLink => ({
  kind: "request",
  href: `/dashboard/usage?request=${encodeURIComponent(id)}#request`,
  label: id,
});

/**
 * The page of whatever wrote a ledger row, by the row's request id (docs/billing.md, "Ledger"): a bulk chunk
 * (`bulk:{run}:{entry}`) its run, a monitor run (`monitor:{id}:{ms}`) that run, a settled-callback re-check
 * (`{request}:recheck{n}`) the request it re-checks, a purchase or an operator's grant its payment page, any other
 * charge its request. Grants and expiries (no request id) have none.
 */
export function ledgerLink(row: Pick<LedgerRow, "kind" | "request_id">): LedgerLink | null {
  const id = row.request_id;
  if (!id) return null;
  if (row.kind === "pack_credit" || row.kind === "plan_credit")
    return { kind: "payment", href: `/dashboard/account/payments/${encodeURIComponent(id)}`, label: "payment" };
  const bulk = BULK.exec(id);
  if (bulk) return { kind: "bulk_run", href: `/dashboard/bulk/runs/${bulk[1]}`, label: "bulk run" };
  const monitor = MONITOR.exec(id);
  if (monitor)
    return {
      kind: "monitor_run",
      href: `/dashboard/monitors/runs/${monitor[1]}/${monitor[2]}`,
      label: "monitor run",
    };
  const recheck = RECHECK.exec(id);
  return requestPage(recheck ? recheck[1]! : id);
}
