import { and, eq, gt, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { emailAnswers, emailHistory, emailSuppressions, mailboxAnswers } from "../../db/schema";
import type { MailboxAnswer } from "./answer";
import type { EmailResult } from "./result";

/** What the email product remembers in D1: repeat answers, shared mailbox answers, suppressions and history. */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;
export const SHARED_MAILBOX_MS = 7 * 86_400_000;
export const UNCERTAIN_REUSE_MS = 15 * 60_000;
export const HISTORY_RETENTION_DAYS = 90;

const CONFIRMED = new Set(["accepted", "no_mailbox", "catch_all"]);
const chunks = <T>(items: T[], size = 90) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

export interface Remembered {
  /** Repeat answers by key: an email result for addresses, a domain result for `@domain` keys. */
  repeats: Map<string, { result: unknown; createdAt: number }>;
  suppressed: Map<string, EmailResult>;
  mailboxes: Map<string, MailboxAnswer>;
}

/** Everything stored about these addresses, read in as few queries as D1's parameter limit allows. */
export async function recall(
  db: Database,
  accountId: string,
  normalized: string[],
  emails: string[],
  withSuppressions: boolean,
  now: number,
): Promise<Remembered> {
  const remembered: Remembered = { repeats: new Map(), suppressed: new Map(), mailboxes: new Map() };
  const reads: Promise<void>[] = [];
  for (const part of chunks(normalized)) {
    reads.push(
      db
        .select()
        .from(emailAnswers)
        .where(and(eq(emailAnswers.accountId, accountId), inArray(emailAnswers.normalizedEmail, part), gt(emailAnswers.createdAt, now - REPEAT_WINDOW_MS)))
        .then((rows) => rows.forEach((r) => remembered.repeats.set(r.normalizedEmail, { result: r.result, createdAt: r.createdAt }))),
    );
    if (withSuppressions) {
      reads.push(
        db
          .select()
          .from(emailSuppressions)
          .where(and(eq(emailSuppressions.accountId, accountId), inArray(emailSuppressions.email, part)))
          .then((rows) => rows.forEach((r) => r.result && remembered.suppressed.set(r.email, r.result as EmailResult))),
      );
    }
  }
  for (const part of chunks(emails)) {
    reads.push(
      db
        .select()
        .from(mailboxAnswers)
        .where(and(inArray(mailboxAnswers.email, part), gt(mailboxAnswers.checkedAt, now - SHARED_MAILBOX_MS)))
        .then((rows) =>
          rows.forEach((r) => {
            const fresh = CONFIRMED.has(r.outcome) || r.checkedAt > now - UNCERTAIN_REUSE_MS;
            if (fresh) remembered.mailboxes.set(r.email, { outcome: r.outcome, checkedAt: r.checkedAt });
          }),
        ),
    );
  }
  await Promise.all(reads);
  return remembered;
}

export const isConfirmed = (mailbox: MailboxAnswer) => CONFIRMED.has(mailbox.outcome);

export interface Remember {
  accountId: string;
  requestId: string;
  now: number;
  /** Settled fresh answers by repeat key: repeat markers (unverified answers write none). */
  answers: { key: string; result: unknown }[];
  /** Handshake answers this request obtained, keyed by address. */
  mailboxes: Map<string, MailboxAnswer>;
  /** Undeliverable verdicts to suppress. */
  suppress: EmailResult[];
  /** Addresses a single re-verify found no longer undeliverable. */
  unsuppress: string[];
  history: { result: EmailResult; credits: number; cacheHit: boolean; suppressed: boolean }[];
}

/** Writes what one request learned, in one D1 batch. */
export async function remember(db: Database, r: Remember): Promise<void> {
  const statements = [
    // Many rows per statement (D1 binds at most 100 parameters: 4 per repeat marker, 10 per history row).
    ...chunks(r.answers, 25).map((part) =>
      db
        .insert(emailAnswers)
        .values(part.map(({ key, result }) => ({ accountId: r.accountId, normalizedEmail: key, result, createdAt: r.now })))
        .onConflictDoUpdate({ target: [emailAnswers.accountId, emailAnswers.normalizedEmail], set: { result: sql`excluded.result`, createdAt: sql`excluded.created_at` } }),
    ),
    ...[...r.mailboxes].map(([email, m]) =>
      db
        .insert(mailboxAnswers)
        .values({ email, domain: email.slice(email.lastIndexOf("@") + 1), outcome: m.outcome as typeof mailboxAnswers.$inferInsert.outcome, checkedAt: m.checkedAt })
        .onConflictDoUpdate({ target: mailboxAnswers.email, set: { outcome: m.outcome as typeof mailboxAnswers.$inferInsert.outcome, checkedAt: m.checkedAt } }),
    ),
    ...r.suppress.map((result) =>
      db
        .insert(emailSuppressions)
        .values({ accountId: r.accountId, email: result.normalized_email, reason: result.reason ?? "undeliverable", source: "verdict", result, createdAt: r.now })
        .onConflictDoUpdate({ target: [emailSuppressions.accountId, emailSuppressions.email], set: { result, reason: result.reason ?? "undeliverable" } }),
    ),
    ...r.unsuppress.map((email) =>
      db.delete(emailSuppressions).where(and(eq(emailSuppressions.accountId, r.accountId), eq(emailSuppressions.email, email))),
    ),
    ...chunks(r.history, 10).map((part) =>
      db.insert(emailHistory).values(
        part.map((h) => ({
          accountId: r.accountId,
          requestId: r.requestId,
          email: h.result.email,
          normalizedEmail: h.result.normalized_email,
          deliverable: h.result.deliverable,
          reason: h.result.reason,
          creditsUsed: h.credits,
          cacheHit: h.cacheHit,
          suppressed: h.suppressed,
          createdAt: r.now,
        })),
      ),
    ),
  ];
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
