import { database } from "../../db/client";
import { escapeHtml } from "../mail/compose";
import { queueMail } from "../mail/outbox";
import { accountRecipients } from "../mail/recipients";
import type { EntryChanges, RunSummary } from "./run-summary";
import type { MonitorRow } from "./store";

/**
 * The alert email of a monitor run: sent to the account's members when the monitor has `alert_emails` and the run is
 * one its `webhook_events` rule posts. It lists exactly the run's `changes` (the entries the webhook body names, in the
 * same order), so mail and webhook never disagree. No secret (key, webhook secret) is ever part of it.
 */
const show = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));
const changeItem = (c: EntryChanges["changes"][number]) =>
  `<li><code>${escapeHtml(c.field)}</code>: ${escapeHtml(show(c.from))} &rarr; ${escapeHtml(show(c.to))}</li>`;

function subjectOf(monitor: Pick<MonitorRow, "name">, summary: RunSummary, changes: EntryChanges[]): string {
  if (changes.length) return `${monitor.name}: ${changes.length} ${changes.length === 1 ? "entry" : "entries"} changed`;
  if (summary.stopped_reason) return `${monitor.name}: the run stopped early (${summary.stopped_reason})`;
  return `${monitor.name}: no changes`;
}

/** The text and HTML bodies: one block per changed entry, one line per changed field. */
/** The monitor's family (`email`, `email_domain`, ...) and the API address of the monitor, whose last run this is. */
export interface AlertContext {
  family: string;
  link: string;
}

export function alertBodies(
  { family, link }: AlertContext,
  monitor: Pick<MonitorRow, "id" | "name">,
  summary: RunSummary,
  changes: EntryChanges[],
) {
  const head =
    `Your ${family} monitor "${monitor.name}" (id ${monitor.id}) ran: ${summary.checked} checked, ` +
    `${summary.changed} changed, ${summary.credits_used} credits used.`;
  const see = `The run is the monitor's last_summary: GET ${link}`;
  const stopped = summary.stopped_reason ? `The run stopped early: ${summary.stopped_reason}.` : null;
  const text = [
    head,
    ...(stopped ? [stopped] : []),
    "",
    ...(changes.length ? ["Changed entries:"] : ["No entry changed."]),
    ...changes.flatMap((entry) => [
      "",
      `* ${entry.identifier}`,
      ...entry.changes.map((c) => `  ${c.field}: ${show(c.from)} -> ${show(c.to)}`),
    ]),
    "",
    see,
    "",
    "You receive this because the monitor has alert_emails on; PATCH it with alert_emails: false to stop.",
    "",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(head)}</p>`,
    ...(stopped ? [`<p>${escapeHtml(stopped)}</p>`] : []),
    changes.length ? "<p>Changed entries:</p><ul>" : "<p>No entry changed.</p>",
    ...changes.map(
      (entry) =>
        `<li><strong>${escapeHtml(entry.identifier)}</strong><ul>${entry.changes.map(changeItem).join("")}</ul></li>`,
    ),
    changes.length ? "</ul>" : "",
    `<p>The run is the monitor's last_summary: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    "<p>You receive this because the monitor has alert_emails on; PATCH it with alert_emails: false to stop.</p>",
  ].join("\n");
  return { subject: subjectOf(monitor, summary, changes), text, html };
}

/** Queues the run's alert to every member; one message per run and recipient, however often the run is retried. */
export async function queueMonitorAlert(
  env: Env,
  context: AlertContext,
  monitor: MonitorRow,
  summary: RunSummary,
  changes: EntryChanges[],
  ranAt: number,
): Promise<void> {
  const recipients = await accountRecipients(database(env), monitor.accountId);
  const { subject, text, html } = alertBodies(context, monitor, summary, changes);
  await queueMail(
    env,
    recipients.map((to) => ({
      accountId: monitor.accountId,
      kind: "monitor_alert",
      to,
      subject,
      text,
      html,
      optional: true,
      dedupeKey: `monitor_alert:${monitor.id}:${ranAt}:${to}`,
    })),
  );
}
