import { and, eq, inArray, lt } from "drizzle-orm";
import { database } from "../src/db/client";
import { bulkJobs, emailAnswers, emailHistory, mailboxAnswers, requestLog, usedChallengeTokens } from "../src/db/schema";
import { INPUT_RETENTION_DAYS, inputKey, RETENTION_DAYS } from "../src/jobs/bulk-engine";
import { HISTORY_RETENTION_DAYS, REPEAT_WINDOW_MS, SHARED_MAILBOX_MS } from "../src/products/email/store";

const DAY_MS = 86_400_000;
/** Turnstile tokens expire after 300 seconds; a day is ample to refuse any replay. */
const CHALLENGE_TOKEN_MEMORY_MS = DAY_MS;

/** Daily cron: deletes what has outlived its purpose (repeat markers, shared answers, history and logs past retention). */
export async function sweepRetention(env: Env, now = Date.now()) {
  const db = database(env);
  const cutoff = now - HISTORY_RETENTION_DAYS * DAY_MS;
  const results = await db.batch([
    db.delete(emailAnswers).where(lt(emailAnswers.createdAt, now - REPEAT_WINDOW_MS)),
    db.delete(mailboxAnswers).where(lt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS)),
    db.delete(emailHistory).where(lt(emailHistory.createdAt, cutoff)),
    db.delete(requestLog).where(lt(requestLog.createdAt, cutoff)),
    db.delete(usedChallengeTokens).where(lt(usedChallengeTokens.usedAt, now - CHALLENGE_TOKEN_MEMORY_MS)),
  ]);
  await sweepBulkRuns(env, now);
  return results.map((r) => r.meta.changes);
}

/** Bulk runs: inputs go after INPUT_RETENTION_DAYS (resume then answers JOB_INPUT_EXPIRED), runs and results after RETENTION_DAYS. */
export async function sweepBulkRuns(env: Env, now = Date.now()) {
  const db = database(env);
  const inputCutoff = now - INPUT_RETENTION_DAYS * DAY_MS;
  const expiredInputs = await db
    .select({ id: bulkJobs.id })
    .from(bulkJobs)
    .where(and(eq(bulkJobs.inputExpired, false), lt(bulkJobs.createdAt, inputCutoff), inArray(bulkJobs.status, ["completed", "failed", "cancelled"])));
  for (const { id } of expiredInputs) {
    await env.RESULTS.delete(inputKey(id));
    await db.update(bulkJobs).set({ inputExpired: true }).where(eq(bulkJobs.id, id));
  }
  const expiredRuns = await db.select({ id: bulkJobs.id }).from(bulkJobs).where(lt(bulkJobs.createdAt, now - RETENTION_DAYS * DAY_MS));
  for (const { id } of expiredRuns) {
    let cursor: string | undefined;
    do {
      const listed = await env.RESULTS.list({ prefix: `bulk/${id}/`, ...(cursor ? { cursor } : {}) });
      if (listed.objects.length) await env.RESULTS.delete(listed.objects.map((o) => o.key));
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
    await db.delete(bulkJobs).where(eq(bulkJobs.id, id));
  }
  return { inputsExpired: expiredInputs.length, runsDeleted: expiredRuns.length };
}
