import { lt } from "drizzle-orm";
import { database } from "../src/db/client";
import { emailAnswers, emailHistory, mailboxAnswers, requestLog, usedChallengeTokens } from "../src/db/schema";
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
  return results.map((r) => r.meta.changes);
}
