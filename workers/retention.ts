import { lt } from "drizzle-orm";
import { database } from "../src/db/client";
import { history, repeats, requestLog, usedChallengeTokens } from "../src/db/schema";
import { sweepBulkRuns } from "../src/engines/bulk/retention";
import { REPEAT_WINDOW_MS } from "../src/engines/lists/account-lists";
import { HISTORY_RETENTION_DAYS } from "../src/engines/lists/history";
import { sweepMail, sweepMailLinks } from "../src/engines/mail/retention";
import { dropBodies } from "../src/engines/webhooks/body-store";
import { dropSettledMonitorBodies, sweepDeliveries, sweptBodyKeys } from "../src/engines/webhooks/retention";
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
  const bodyKeys = await sweptBodyKeys(db, now);
  const results = await db.batch([
    // Repeat markers and history live in each account's object, which prunes its own; these clear what is left of
    // the old D1 layout (never written by the lookup path now, and copied into the objects on their first use).
    db.delete(repeats).where(lt(repeats.createdAt, now - REPEAT_WINDOW_MS)),
    sweepMailboxes(db, now),
    db.delete(history).where(lt(history.createdAt, now - HISTORY_RETENTION_DAYS * DAY_MS)),
    sweepDeliveries(db, now),
    sweepMail(db, now),
    sweepMailLinks(db, now),
    db.delete(requestLog).where(lt(requestLog.createdAt, now - HISTORY_RETENTION_DAYS * DAY_MS)),
    db.delete(usedChallengeTokens).where(lt(usedChallengeTokens.usedAt, now - CHALLENGE_TOKEN_MEMORY_MS)),
  ]);
  // After the rows: a failed sweep must not leave rows naming deleted bodies (an orphaned object is harmless).
  await dropBodies(env, bodyKeys);
  await sweepBulkRuns(env, now);
  await dropSettledMonitorBodies(env, now);
  return results.map((r) => r.meta.changes);
}
