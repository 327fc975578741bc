import { and, eq } from "drizzle-orm";
import { database } from "../../db/client";
import { bulkJobs } from "../../db/schema";
import { accountObject } from "../credits/credits";
import { escapeHtml } from "../mail/compose";
import { queueMail } from "../mail/outbox";
import { accountRecipients } from "../mail/recipients";
import type { JobRow } from "./jobs";

/**
 * "Bulk run finished" mail (docs/mail.md): opt-in per account (`bulk_finished_emails` on PATCH /account), because the
 * run's own body is the spec's and already has a per-run signal (its webhook), while mail goes to every member and is
 * something an account turns on once. Sent when the run settles (finished, cancelled, failed, or stopped for credits),
 * once per finish and recipient (a run resumed after a stop mails again when it finishes again). The mail names the run
 * and its counters and links to it; never a key or webhook secret.
 */
export function finishedMailBodies(env: Env, row: JobRow) {
  const link = `${env.MAIL_BASE_URL.replace(/\/+$/, "")}/api/v1/${row.product}/bulk/${row.id}`;
  const counters = Object.entries(row.counts ?? {}).map(([name, n]) => `${name}: ${n}`);
  const lines = [
    `Your ${row.product} bulk run ${row.id} is ${row.status}: ${row.processed} of ${row.total} entries processed, ` +
      `${row.creditsUsed} credits used.`,
    ...(row.stoppedReason ? [`It stopped early: ${row.stoppedReason}.`] : []),
    ...(counters.length ? [`Counts: ${counters.join(", ")}.`] : []),
  ];
  const footer =
    "You get this because bulk_finished_emails is on for the account (PATCH /api/v1/account to turn it off).";
  const text = [...lines, "", `The run: GET ${link}`, `Results: GET ${link}/results`, "", footer, ""].join("\n");
  const html = [
    ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
    `<p>The run: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>Results: <a href="${escapeHtml(`${link}/results`)}">${escapeHtml(`${link}/results`)}</a></p>`,
    `<p>${escapeHtml(footer)}</p>`,
  ].join("\n");
  return { subject: `Bulk ${row.product} run ${row.id} ${row.status}`, text, html };
}

/**
 * Queues the mail when the account asked for it, then marks this finish as mailed (`finished_mail_at`, also when no
 * mail was wanted) so the recovery sweep leaves it alone. A second call for the same finish (a retried finish, the
 * sweep after a crash between the two steps) queues nothing twice: each message's dedupe key names the finish.
 */
export async function queueFinishedMail(env: Env, row: JobRow): Promise<void> {
  const settings = await accountObject(env, row.accountId).mailSettings();
  const db = database(env);
  if (settings.bulk_finished_emails) {
    const recipients = await accountRecipients(db, row.accountId);
    const { subject, text, html } = finishedMailBodies(env, row);
    await queueMail(
      env,
      recipients.map((to) => ({
        accountId: row.accountId,
        kind: "bulk_finished",
        to,
        subject,
        text,
        html,
        optional: true,
        dedupeKey: `bulk_finished:${row.id}:${row.finishedAt}:${to}`,
      })),
    );
  }
  if (row.finishedAt === null) return;
  await db
    .update(bulkJobs)
    .set({ finishedMailAt: Date.now() })
    .where(and(eq(bulkJobs.id, row.id), eq(bulkJobs.finishedAt, row.finishedAt)));
}
