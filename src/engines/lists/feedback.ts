import { and, count, eq, gte, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { feedback } from "../../db/schema";
import { chunks } from "../../db/chunks";

/**
 * Delivery feedback of every product: what happened when the account used a value it looked up (delivered, bounced,
 * complained, ...). Products decide what an outcome means (a hard bounce suppresses an address); this only stores and
 * counts.
 */
export interface FeedbackEntry {
  key: string;
  outcome: string;
  detail: unknown;
  source: string;
}

/** 7 parameters a row. */
export async function recordFeedback(db: Database, accountId: string, product: string, entries: FeedbackEntry[], now: number): Promise<void> {
  const statements = chunks(entries, 14).map((part) => db.insert(feedback).values(part.map((e) => ({ accountId, product, ...e, createdAt: now }))));
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** Counts by outcome since a time. */
export async function feedbackCounts(db: Database, accountId: string, product: string, since: number): Promise<Record<string, number>> {
  const rows = await db
    .select({ outcome: feedback.outcome, n: count() })
    .from(feedback)
    .where(and(eq(feedback.accountId, accountId), eq(feedback.product, product), gte(feedback.createdAt, since)))
    .groupBy(feedback.outcome);
  return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
}

/** The latest outcome recorded for each of these keys. */
export async function latestOutcomes(db: Database, accountId: string, product: string, keys: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const results = await Promise.all(
    chunks([...new Set(keys)], 90).map((part) =>
      db
        .select({ key: feedback.key, outcome: feedback.outcome, id: feedback.id })
        .from(feedback)
        .where(and(eq(feedback.accountId, accountId), eq(feedback.product, product), inArray(feedback.key, part))),
    ),
  );
  for (const row of results.flat().sort((a, b) => a.id - b.id)) found.set(row.key, row.outcome);
  return found;
}
