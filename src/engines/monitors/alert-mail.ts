import { database } from "../../db/client";
import { escapeHtml } from "../mail/compose";
import { queueMail } from "../mail/outbox";
import { accountRecipients } from "../mail/recipients";
import type { ChangeReason } from "./change-reason";
import type { EntryChanges, RunSummary } from "./run-summary";
import type { MonitorRow } from "./store";

/**
 * The alert email of a monitor run: sent to the account's members when the monitor has `alert_emails` and the run is
 * one its `webhook_events` rule posts. It lists the run's `changes` (the entries the webhook body names, in the same
 * order), as many as fit `ALERT_LIST_BYTES`, and counts the rest. No secret (key, webhook secret) is ever part of it.
 */
const show = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));
const changeItem = (c: EntryChanges["changes"][number]) =>
  `<li><code>${escapeHtml(c.field)}</code>: ${escapeHtml(show(c.from))} &rarr; ${escapeHtml(show(c.to))}</li>`;

/** Each change `reason` in words (products.md, "Monitor changes"), for a reader who does not know the names. */
const REASON_WORDS: Record<ChangeReason, string> = {
  recheck: "a fresh check answered differently",
  feedback: "a bounce, complaint or delivery report was recorded for it",
  suppressed: "the value was suppressed",
  dataset: "a dataset update changed the answer",
  partner: "a partner's answer changed",
};

/** `reason: suppressed (the value was suppressed)`; `reason: unknown` for a run that could not tell. */
export const reasonLine = (reason: ChangeReason | null) =>
  reason ? `reason: ${reason} (${REASON_WORDS[reason]})` : "reason: unknown";

/**
 * The bytes of text, and as many of HTML, the listed entries may take: base64 makes each a third larger, so the message
 * stays well under the 512 KiB the mail relay takes (workers/smtp-sidecar/submit.mjs MAX_SUBMIT_BYTES). A longer list
 * (a 1,000-entry run where each entry changed two fields is about 700 KB) would be refused for good and reach nobody;
 * the entries past it are counted and left to the run (test/limits/hops.ts checks a run at every monitor's maximum).
 */
export const ALERT_LIST_BYTES = 160 * 1024;

const utf8Bytes = (value: string) => new TextEncoder().encode(value).byteLength;

/** One changed entry as its text lines and its HTML list item. */
const entryBlocks = (entry: EntryChanges) => ({
  text: [
    "",
    `* ${entry.identifier}`,
    `  ${reasonLine(entry.reason)}`,
    ...entry.changes.map((c) => `  ${c.field}: ${show(c.from)} -> ${show(c.to)}`),
  ],
  html:
    `<li><strong>${escapeHtml(entry.identifier)}</strong> <em>${escapeHtml(reasonLine(entry.reason))}</em>` +
    `<ul>${entry.changes.map(changeItem).join("")}</ul></li>`,
});

/** The leading entries whose blocks fit `ALERT_LIST_BYTES` in both bodies (always the first, however long). */
function listed(changes: EntryChanges[]) {
  const blocks: ReturnType<typeof entryBlocks>[] = [];
  let text = 0;
  let html = 0;
  for (const entry of changes) {
    const block = entryBlocks(entry);
    text += utf8Bytes(block.text.join("\n")) + 1;
    html += utf8Bytes(block.html) + 1;
    if (blocks.length && (text > ALERT_LIST_BYTES || html > ALERT_LIST_BYTES)) break;
    blocks.push(block);
  }
  return blocks;
}

function subjectOf(monitor: Pick<MonitorRow, "name">, summary: RunSummary, changes: EntryChanges[]): string {
  if (changes.length) return `${monitor.name}: ${changes.length} ${changes.length === 1 ? "entry" : "entries"} changed`;
  if (summary.stopped_reason) return `${monitor.name}: the run stopped early (${summary.stopped_reason})`;
  return `${monitor.name}: no changes`;
}

/** The monitor's family (`email`, `email_domain`, ...) and the monitor's place on the dashboard's monitors page. */
export interface AlertContext {
  family: string;
  link: string;
}

/** How to stop: the dashboard's Edit form of the monitor, whose alert emails field is the API's `alert_emails`. */
export const STOP =
  "You receive this because the monitor has alert emails on. To stop them, open the monitor in the dashboard, " +
  'choose Edit and set "Alert emails to the account\'s members" to off.';

export function alertBodies(
  { family, link }: AlertContext,
  monitor: Pick<MonitorRow, "id" | "name">,
  summary: RunSummary,
  changes: EntryChanges[],
) {
  const head =
    `Your ${family} monitor "${monitor.name}" (id ${monitor.id}) ran: ${summary.checked} checked, ` +
    `${summary.changed} changed, ${summary.credits_used} credits used.`;
  const see = `See the monitor and its last runs in the dashboard: ${link}`;
  const stopped = summary.stopped_reason ? `The run stopped early: ${summary.stopped_reason}.` : null;
  const blocks = listed(changes);
  const rest = changes.length - blocks.length;
  const more = rest ? `... and ${rest} more changed ${rest === 1 ? "entry" : "entries"}: too many for one mail.` : null;
  const text = [
    head,
    ...(stopped ? [stopped] : []),
    "",
    ...(changes.length ? ["Changed entries:"] : ["No entry changed."]),
    ...blocks.flatMap((block) => block.text),
    ...(more ? ["", more] : []),
    "",
    see,
    "",
    STOP,
    "",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(head)}</p>`,
    ...(stopped ? [`<p>${escapeHtml(stopped)}</p>`] : []),
    changes.length ? "<p>Changed entries:</p><ul>" : "<p>No entry changed.</p>",
    ...blocks.map((block) => block.html),
    changes.length ? "</ul>" : "",
    ...(more ? [`<p>${escapeHtml(more)}</p>`] : []),
    `<p>See the monitor and its last runs in the dashboard: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>${escapeHtml(STOP)}</p>`,
  ].join("\n");
  return { subject: subjectOf(monitor, summary, changes), text, html };
}

/** Queues the run's alert to every member; one message per run and recipient, however often the run is retried. */
export async function queueMonitorAlert(
  env: Env,
  context: AlertContext,
  monitor: MonitorRow,
  run: { summary: RunSummary; changes: EntryChanges[]; ranAt: number },
): Promise<void> {
  const { summary, changes, ranAt } = run;
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
