import { and, gt, inArray, lt } from "drizzle-orm";
import { chunks } from "../../db/chunks";
import type { Database } from "../../db/client";
import { mailboxAnswers } from "./tables";
import type { MailboxAnswer } from "./answer";

/**
 * Email's own store: mailbox handshake answers shared across accounts. Confirmed ones (accepted, no_mailbox,
 * mailbox_disabled, catch_all) are reused for up to a week; mailbox_full (a state its owner can clear any time) for 15
 * minutes; greylisted for 5 minutes (postgrey's default delay: past it the server would answer, so asking again is
 * worth it). Answers the prober caused or that concern the prober are never shared with another account and never
 * stored: `timeout` (its own deadline or pacing), `blocked` (a refusal of the prober; the sidecar remembers its
 * back-off itself) and `provider_unavailable`. Repeats, suppressions and history are the engines' (src/engines).
 */
export const SHARED_MAILBOX_MS = 7 * 86_400_000;
export const UNCERTAIN_REUSE_MS = 15 * 60_000;
export const GREYLISTED_REUSE_MS = 5 * 60_000;

/** How long an uncertain stored answer may be reused, by outcome; the others are not reused (older rows included). */
const UNCERTAIN_REUSE: Partial<Record<string, number>> = {
  mailbox_full: UNCERTAIN_REUSE_MS,
  greylisted: GREYLISTED_REUSE_MS,
};
/** Answers never shared across accounts. */
const NOT_SHARED = new Set(["provider_unavailable", "timeout", "blocked"]);

const CONFIRMED = new Set(["accepted", "no_mailbox", "mailbox_disabled", "catch_all"]);

export const isConfirmed = (mailbox: MailboxAnswer) => CONFIRMED.has(mailbox.outcome);

/** Shared answers for these addresses still worth reusing. */
export async function recallMailboxes(
  db: Database,
  emails: string[],
  now: number,
): Promise<Map<string, MailboxAnswer>> {
  const found = new Map<string, MailboxAnswer>();
  const results = await Promise.all(
    chunks([...new Set(emails)], 90).map((part) =>
      db
        .select()
        .from(mailboxAnswers)
        .where(and(inArray(mailboxAnswers.email, part), gt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS))),
    ),
  );
  for (const r of results.flat()) {
    if (CONFIRMED.has(r.outcome) || r.checkedAt > now - (UNCERTAIN_REUSE[r.outcome] ?? 0))
      found.set(r.email, { outcome: r.outcome, checkedAt: r.checkedAt, catchAll: r.catchAll });
  }
  return found;
}

type StoredOutcome = typeof mailboxAnswers.$inferInsert.outcome;

/** One shared answer as it travels on the queue and is stored: a row of `mailbox_answers`. */
export interface SharedMailbox {
  email: string;
  domain: string;
  outcome: StoredOutcome;
  checkedAt: number;
  catchAll: boolean | null;
}

/**
 * The queue message that shares a lookup's handshake answers (`mailbox_answers`): sent after the answer, stored by
 * `storeMailboxes` for every such message of a delivered batch at once.
 */
export interface MailboxAnswersMessage {
  type: "mailbox_answers";
  answers: SharedMailbox[];
}

/** What the handshake learnt of catch-all: implied by a catch-all or refused answer, or the accepted answer's own. */
const catchAllOf = (m: MailboxAnswer): boolean | null =>
  m.outcome === "catch_all" ? true : m.outcome === "no_mailbox" ? false : (m.catchAll ?? null);

/** The rows worth sharing (never `NOT_SHARED`: they must be asked again, and never served to another account). */
export const sharedRows = (observed: Map<string, MailboxAnswer>): SharedMailbox[] =>
  [...observed]
    .filter(([, m]) => !NOT_SHARED.has(m.outcome))
    .map(([email, m]) => ({
      email,
      domain: email.slice(email.lastIndexOf("@") + 1),
      outcome: m.outcome as StoredOutcome,
      checkedAt: m.checkedAt,
      catchAll: catchAllOf(m),
    }));

/**
 * Any number of shared answers in one statement (they travel as one JSON array bound to one parameter, so D1's
 * 100-parameter limit does not split them; `WHERE true` separates SQLite's INSERT ... SELECT from its upsert). An
 * answer replaces a stored one only when it was checked later, so a redelivered or late message changes nothing, and
 * two answers for one address in a batch leave the newer.
 */
const UPSERT_ANSWERS = `INSERT INTO mailbox_answers (email, domain, outcome, checked_at, catch_all)
SELECT json_extract(value, '$.email'), json_extract(value, '$.domain'), json_extract(value, '$.outcome'),
  json_extract(value, '$.checkedAt'), json_extract(value, '$.catchAll')
FROM json_each(?1) WHERE true
ON CONFLICT (email) DO UPDATE SET outcome = excluded.outcome, checked_at = excluded.checked_at,
  catch_all = excluded.catch_all
WHERE excluded.checked_at > mailbox_answers.checked_at`;

/** Stores shared answers (idempotent: see `UPSERT_ANSWERS`): one D1 write however many. */
export async function storeMailboxes(db: D1Database, answers: readonly SharedMailbox[]): Promise<void> {
  if (!answers.length) return;
  await db.prepare(UPSERT_ANSWERS).bind(JSON.stringify(answers)).run();
}

/**
 * Shares what a lookup's handshakes answered. An HTTP request hands them to the queue after its answer (its consumer
 * stores a delivered batch's in one write), so the lookup path writes nothing to the D1 primary; if that send fails
 * the answer stays correct and only the sharing is lost (logged). Queued work (bulk, monitors, re-checks) is already
 * off the lookup path and stores them itself.
 */
export async function shareMailboxes(
  env: Env,
  observed: Map<string, MailboxAnswer>,
  defer?: (work: () => Promise<unknown>) => void,
): Promise<void> {
  const answers = sharedRows(observed);
  if (!answers.length) return;
  if (!defer) return storeMailboxes(env.DB, answers);
  const message: MailboxAnswersMessage = { type: "mailbox_answers", answers };
  defer(() =>
    env.JOBS.send(message).catch((err) =>
      console.error(JSON.stringify({ event: "mailbox_share_failed", answers: answers.length, error: String(err) })),
    ),
  );
}

export const sweepMailboxes = (db: Database, now: number) =>
  db.delete(mailboxAnswers).where(lt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS));
