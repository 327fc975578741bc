import { and, eq, inArray, lt } from "drizzle-orm";
import { database } from "../../db/client";
import { bulkJobs } from "../../db/schema";
import { FINISHED, INPUT_RETENTION_DAYS, inputKey, RETENTION_DAYS } from "./jobs";

const DAY_MS = 86_400_000;

async function deletePrefix(env: Env, prefix: string) {
  let cursor: string | undefined;
  do {
    const listed = await env.RESULTS.list({ prefix, ...(cursor ? { cursor } : {}) });
    if (listed.objects.length) await env.RESULTS.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}

/**
 * Inputs go after INPUT_RETENTION_DAYS (resume then answers JOB_INPUT_EXPIRED); runs and results after RETENTION_DAYS.
 */
export async function sweepBulkRuns(env: Env, now = Date.now()) {
  const db = database(env);
  const expiredInputs = await db
    .select({ id: bulkJobs.id })
    .from(bulkJobs)
    .where(
      and(
        eq(bulkJobs.inputExpired, false),
        lt(bulkJobs.createdAt, now - INPUT_RETENTION_DAYS * DAY_MS),
        inArray(bulkJobs.status, [...FINISHED]),
      ),
    );
  for (const { id } of expiredInputs) {
    await env.RESULTS.delete(inputKey(id));
    await db.update(bulkJobs).set({ inputExpired: true }).where(eq(bulkJobs.id, id));
  }
  const expiredRuns = await db
    .select({ id: bulkJobs.id })
    .from(bulkJobs)
    .where(lt(bulkJobs.createdAt, now - RETENTION_DAYS * DAY_MS));
  for (const { id } of expiredRuns) {
    await deletePrefix(env, `bulk/${id}/`);
    await db.delete(bulkJobs).where(eq(bulkJobs.id, id));
  }
  return { inputsExpired: expiredInputs.length, runsDeleted: expiredRuns.length };
}
