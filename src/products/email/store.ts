import { and, gt, inArray, lt } from "drizzle-orm";
import { chunks } from "../../db/chunks";
import type { Database } from "../../db/client";
import { mailboxAnswers } from "../../db/schema";
import type { MailboxAnswer } from "./answer";

/**
 * Email's own store: mailbox handshake answers shared across accounts. Confirmed ones (accepted, no_mailbox,
 * mailbox_disabled, catch_all) are reused for up to a week, uncertain ones (greylisted, timeout, and mailbox_full, a
 * state its owner can clear any time) for 15 minutes; `provider_unavailable` is never stored. Repeats, suppressions and
 * history are the engines' (src/engines).
 */
export const SHARED_MAILBOX_MS = 7 * 86_400_000;
export const UNCERTAIN_REUSE_MS = 15 * 60_000;

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
    if (CONFIRMED.has(r.outcome) || r.checkedAt > now - UNCERTAIN_REUSE_MS)
      found.set(r.email, { outcome: r.outcome, checkedAt: r.checkedAt, catchAll: r.catchAll });
  }
  return found;
}

type StoredOutcome = typeof mailboxAnswers.$inferInsert.outcome;

/** What the handshake learnt of catch-all: implied by a catch-all or refused answer, or the accepted answer's own. */
const catchAllOf = (m: MailboxAnswer): boolean | null =>
  m.outcome === "catch_all" ? true : m.outcome === "no_mailbox" ? false : (m.catchAll ?? null);

/** Shares what handshakes answered (never `provider_unavailable`, which must be asked again). */
export async function rememberMailboxes(db: Database, observed: Map<string, MailboxAnswer>): Promise<void> {
  const statements = [...observed]
    .filter(([, m]) => m.outcome !== "provider_unavailable")
    .map(([email, m]) =>
      db
        .insert(mailboxAnswers)
        .values({
          email,
          domain: email.slice(email.lastIndexOf("@") + 1),
          outcome: m.outcome as StoredOutcome,
          checkedAt: m.checkedAt,
          catchAll: catchAllOf(m),
        })
        .onConflictDoUpdate({
          target: mailboxAnswers.email,
          set: { outcome: m.outcome as StoredOutcome, checkedAt: m.checkedAt, catchAll: catchAllOf(m) },
        }),
    );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

export const sweepMailboxes = (db: Database, now: number) =>
  db.delete(mailboxAnswers).where(lt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS));
