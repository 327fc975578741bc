import type { LedgerRow } from "../../../../durable-objects/account-object";
import type { EntryChanges } from "../../../engines/monitors/run";
import type { MonitorRow, MonitorRunRow } from "../../../engines/monitors/store";
import { summarySentence } from "../run-sentence";
import type { DashboardSession } from "../session";
import { Layout } from "./layout";
import { LocalTime } from "./local-time";
import { ChangesTable } from "./monitors";

export interface MonitorRunPageProps {
  session: DashboardSession;
  monitorId: number;
  ranAt: number;
  /** The monitor and its family, unless it was deleted since. */
  monitor?: { row: MonitorRow; family: string };
  /** The run as recorded, while it is among the monitor's last 10. */
  run?: MonitorRunRow;
  /** What the run was charged (the ledger's rows under `monitor:{id}:{ranAt}`). */
  charges: LedgerRow[];
}

/** One monitor run, the page a ledger row of the run links to: when, what it found, what changed, what it cost. */
export function MonitorRunPage({ session, monitorId, ranAt, monitor, run, charges }: MonitorRunPageProps) {
  const charged = -charges.reduce((sum, row) => sum + row.plan_delta + row.pack_delta, 0);
  const anchor = monitor ? `/dashboard/monitors#monitor-${monitor.family}-${monitorId}` : null;
  return (
    <Layout title={`Monitor run`} session={session} path="/dashboard/monitors">
      <section id="monitor-run">
        <p>
          {monitor ? `${monitor.family} monitor ${monitorId} · ${monitor.row.name}, run at ` : `Monitor ${monitorId}, `}
          <LocalTime at={ranAt} />
          {monitor ? "" : " (the monitor has been deleted since)"}
        </p>
        {run ? (
          <>
            <p id="monitor-run-summary">{summarySentence(run.summary as Record<string, unknown>)}</p>
            {run.changedTotal ? <ChangesTable changes={run.changes as EntryChanges[]} /> : null}
          </>
        ) : (
          <p class="muted">This run is no longer kept: a monitor keeps its last 10 runs.</p>
        )}
        <p id="monitor-run-charged">{`Charged ${charged} ${charged === 1 ? "credit" : "credits"} in the ledger.`}</p>
        <p class="muted">
          {anchor ? <a href={anchor}>The monitor</a> : null}
          {anchor ? " · " : ""}
          <a href="/dashboard/usage#ledger">The ledger</a>
        </p>
      </section>
    </Layout>
  );
}
