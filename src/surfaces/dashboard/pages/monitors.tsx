import type { EntryChanges } from "../../../engines/monitors/run";
import { STORED_CHANGES, type MonitorRunRow } from "../../../engines/monitors/store";
import type { MonitorView } from "../../../engines/monitors/view";
import type { DashboardSession } from "../session";
import { FieldErrors } from "./field-errors";
import { summarySentence } from "../run-sentence";
import { Layout } from "./layout";
import { LocalTime } from "./local-time";
import { CreateForm, MonitorActions, type FamilyForms } from "./monitor-forms";

export interface FamilySection extends FamilyForms {
  monitors: { monitor: MonitorView; runs: MonitorRunRow[] }[];
}

export interface MonitorsPageProps {
  session: DashboardSession;
  families: FamilySection[];
  notice?: string;
  /** The webhook signing secret a create or a new URL just minted: shown on this answer only. */
  secret?: string;
  /** A refusal: of the new monitor form (`create`) or of a monitor's edit form. */
  errors?: { family: string; on: "create" | "edit"; fields: Record<string, string[]> };
  /** The family the new monitor form is for (`?new=`); the first family when none or an unknown one is asked. */
  creating?: string;
}

const entryCount = (m: MonitorView, listField: string) =>
  ((m as Record<string, unknown>)[listField] as unknown[]).length;

/** Each changed field of each changed entry: entry, field, was, now. */
export function ChangesTable({ changes }: { changes: EntryChanges[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Entry</th>
          <th>Why</th>
          <th>Field</th>
          <th>Was</th>
          <th>Now</th>
        </tr>
      </thead>
      <tbody>
        {changes.flatMap((entry) =>
          entry.changes.map((change) => (
            <tr>
              <td>{entry.identifier}</td>
              <td>{entry.reason ?? "unknown"}</td>
              <td>{change.field}</td>
              <td>{JSON.stringify(change.from)}</td>
              <td>{JSON.stringify(change.to)}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** The monitor's last runs, newest first, each with its summary and its changed entries. */
function LastRuns({ runs }: { runs: MonitorRunRow[] }) {
  if (!runs.length) return null;
  return (
    <details class="runs">
      <summary>{`Last runs (${runs.length})`}</summary>
      {runs.map((run) => (
        <div class="run">
          <p>
            <a href={`/dashboard/monitors/runs/${run.monitorId}/${run.ranAt}`}>
              <LocalTime at={run.ranAt} />
            </a>{" "}
            <span class="muted">{summarySentence(run.summary as Record<string, unknown>)}</span>
          </p>
          {run.changedTotal ? <ChangesTable changes={run.changes as EntryChanges[]} /> : null}
          {run.changedTotal > (run.changes as unknown[]).length ? (
            <p class="muted">{`${run.changedTotal} entries changed; the first ${STORED_CHANGES} are shown.`}</p>
          ) : null}
        </div>
      ))}
    </details>
  );
}

function Family({
  section,
  csrf,
  errors,
}: {
  section: FamilySection;
  csrf: string;
  errors?: Record<string, string[]>;
}) {
  return (
    <section id={`monitors-${section.family}`}>
      <h3>{section.family}</h3>
      <FieldErrors errors={errors} />
      {section.monitors.length ? (
        <table>
          <thead>
            <tr>
              <th>Monitor</th>
              <th>Schedule</th>
              <th>Webhook and alerts</th>
              <th>Last run</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {section.monitors.map(({ monitor: m, runs }) => (
              <tr id={`monitor-${section.family}-${m.id}`}>
                <td>
                  {`${m.id} · ${m.name}`}
                  <br />
                  <span class="muted">{`${entryCount(m, section.listField)} entries`}</span>
                </td>
                <td>
                  {m.cadence}
                  {m.next_run_at ? (
                    <>
                      {"; next "}
                      <LocalTime at={Date.parse(m.next_run_at)} />
                    </>
                  ) : null}
                </td>
                <td>
                  {m.webhook_url
                    ? `${m.webhook_url} (${m.webhook_events}, ${m.webhook_status ?? "no delivery"})`
                    : "none"}
                  {`; alert emails ${m.alert_emails ? "on" : "off"}`}
                </td>
                <td>
                  {m.last_run_at ? <LocalTime at={Date.parse(m.last_run_at)} /> : "never"}
                  <br />
                  <span class="muted" data-summary="">
                    {summarySentence(m.last_summary)}
                  </span>
                  <LastRuns runs={runs} />
                </td>
                <td>
                  <MonitorActions forms={section} csrf={csrf} monitor={m} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** One create form, for the family the picker chose (links, so the page works without script). */
function NewMonitor({
  families,
  chosen,
  csrf,
  errors,
}: {
  families: FamilySection[];
  chosen: FamilySection;
  csrf: string;
  errors?: Record<string, string[]>;
}) {
  return (
    <section id="new-monitor">
      <h2>New monitor</h2>
      <nav class="picker" aria-label="Product">
        {families.map((section) => (
          <a
            href={`/dashboard/monitors?new=${section.family}#new-monitor`}
            aria-current={section === chosen ? "page" : undefined}
          >
            {section.family}
          </a>
        ))}
      </nav>
      <FieldErrors errors={errors} />
      {chosen.keys.length ? (
        <CreateForm forms={chosen} csrf={csrf} />
      ) : (
        <p class="notice warn">
          {`A ${chosen.family} monitor needs a live secret key with this product's scope: create one on the `}
          <a href="/dashboard/keys">keys page</a>.
        </p>
      )}
    </section>
  );
}

/**
 * Monitors of every product: the account's monitors first, each family's with their schedule, webhook, alerts and
 * last run, edit (the API's PATCH rules), run now and delete; then one form to create a monitor of the product the
 * picker chose.
 */
export function MonitorsPage({ session, families, notice, secret, errors, creating }: MonitorsPageProps) {
  const chosen =
    families.find((section) => section.family === (errors?.on === "create" ? errors.family : creating)) ?? families[0]!;
  const listed = families.filter((section) => section.monitors.length);
  return (
    <Layout title="Monitors" session={session} path="/dashboard/monitors">
      <p class="muted">
        Monitors re-check a saved list weekly or monthly and report what changed. Each run is billed like a batch to the
        monitor's key (repeats within 7 days and test values free); "Run now" runs at once and leaves the schedule.
      </p>
      {notice ? <p class="notice">{notice}</p> : null}
      {secret ? (
        <section>
          <p>Webhook signing secret: copy it now, it is not shown again.</p>
          <p class="secret" id="webhook-secret">
            {secret}
          </p>
        </section>
      ) : null}
      <section id="monitors-list">
        <h2>Your monitors</h2>
        {listed.length ? null : <p class="muted">No monitors yet: create one below.</p>}
        {listed.map((section) => (
          <Family
            section={section}
            csrf={session.csrfToken}
            errors={errors?.on === "edit" && errors.family === section.family ? errors.fields : undefined}
          />
        ))}
      </section>
      <NewMonitor
        families={families}
        chosen={chosen}
        csrf={session.csrfToken}
        errors={errors?.on === "create" ? errors.fields : undefined}
      />
    </Layout>
  );
}
