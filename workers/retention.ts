import { lt } from "drizzle-orm";
import { database } from "../src/db/client";
import { requestLog, usedChallengeTokens } from "../src/db/schema";
import { sweepBulkRuns } from "../src/engines/bulk/retention";
import { HISTORY_RETENTION_DAYS, sweepHistory } from "../src/engines/lists/history";
import { sweepMail, sweepMailLinks } from "../src/engines/mail/retention";
import { sweepRepeats } from "../src/engines/repeats/store";
import { sweepDeliveries } from "../src/engines/webhooks/retention";
import { sweepMailboxes } from "../src/products/email/store";

const DAY_MS = 86_400_000;
/** Turnstile tokens expire after 300 seconds; a day is ample to refuse any replay. */
const CHALLENGE_TOKEN_MEMORY_MS = DAY_MS;

/**
 * Daily cron: deletes what has outlived its purpose (repeat markers, shared answers, history, deliveries, mail, logs,
 * bulk runs).
 */
export async function sweepRetention(env: Env, now = Date.now()) {
  const db = database(env);
  const results = await db.batch([
    sweepRepeats(db, now),
    sweepMailboxes(db, now),
    sweepHistory(db, now),
    sweepDeliveries(db, now),
    sweepMail(db, now),
    sweepMailLinks(db, now),
    db.delete(requestLog).where(lt(requestLog.createdAt, now - HISTORY_RETENTION_DAYS * DAY_MS)),
    db.delete(usedChallengeTokens).where(lt(usedChallengeTokens.usedAt, now - CHALLENGE_TOKEN_MEMORY_MS)),
  ]);
  await sweepBulkRuns(env, now);
  return results.map((r) => r.meta.changes);
}
