import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunks } from "../../db/chunks";
import type { Database } from "../../db/client";
import { repeats } from "../../db/schema";

/**
 * The 7-day repeat window of every product, keyed by (account, product, key): a repeat of a paid (or settled) answer
 * within the window is free. D1 binds at most 100 parameters a statement, which sizes the chunks.
 */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;

export interface Repeat {
  result: unknown;
  createdAt: number;
}

/** The account's repeat answers for these keys still inside the window. */
export async function recallRepeats(db: Database, accountId: string, product: string, keys: string[], now: number): Promise<Map<string, Repeat>> {
  const found = new Map<string, Repeat>();
  const parts = chunks([...new Set(keys)], 90);
  const results = await Promise.all(
    parts.map((part) =>
      db
        .select({ key: repeats.key, result: repeats.result, createdAt: repeats.createdAt })
        .from(repeats)
        .where(and(eq(repeats.accountId, accountId), eq(repeats.product, product), inArray(repeats.key, part), gt(repeats.createdAt, now - REPEAT_WINDOW_MS))),
    ),
  );
  for (const row of results.flat()) found.set(row.key, { result: row.result, createdAt: row.createdAt });
  return found;
}

/** Statements that start (or restart) the window of each answer: 5 parameters a row. */
export function rememberRepeats(db: Database, accountId: string, product: string, answers: { key: string; result: unknown }[], now: number): BatchItem<"sqlite">[] {
  return chunks(answers, 20).map((part) =>
    db
      .insert(repeats)
      .values(part.map(({ key, result }) => ({ accountId, product, key, result, createdAt: now })))
      .onConflictDoUpdate({ target: [repeats.accountId, repeats.product, repeats.key], set: { result: sql`excluded.result`, createdAt: sql`excluded.created_at` } }),
  );
}

/** Retention: markers past the window answer nothing, so they go. */
export const sweepRepeats = (db: Database, now: number) => db.delete(repeats).where(lt(repeats.createdAt, now - REPEAT_WINDOW_MS));
