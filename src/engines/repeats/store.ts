import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { unionAll } from "drizzle-orm/sqlite-core";
import { chunks } from "../../db/chunks";
import type { Database } from "../../db/client";
import { repeats } from "../../db/schema";
import { currentRows, type KeyVersion } from "../rekey";

/**
 * The 7-day repeat window of every product, keyed by (account, product, key): a repeat of a paid (or settled) answer
 * within the window is free. D1 binds at most 100 parameters a statement, which sizes the chunks.
 */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;

export interface Repeat {
  result: unknown;
  createdAt: number;
}

/**
 * The account's repeat answers for these keys still inside the window. With `rekeyed` (a product whose key function
 * changed), the account's markers keyed by an older version are read in the same statement and re-keyed
 * (src/engines/rekey.ts).
 */
export async function recallRepeats(
  db: Database,
  accountId: string,
  product: string,
  keys: string[],
  now: number,
  rekeyed?: KeyVersion,
): Promise<Map<string, Repeat>> {
  const wanted = [...new Set(keys)];
  const live = gt(repeats.createdAt, now - REPEAT_WINDOW_MS);
  const byKey = (part: string[]) =>
    db
      .select({
        key: repeats.key,
        keyVersion: repeats.keyVersion,
        result: repeats.result,
        createdAt: repeats.createdAt,
      })
      .from(repeats)
      .where(and(eq(repeats.accountId, accountId), eq(repeats.product, product), inArray(repeats.key, part), live));
  const stale = (keys: KeyVersion) =>
    db
      .select({
        key: repeats.key,
        keyVersion: repeats.keyVersion,
        result: repeats.result,
        createdAt: repeats.createdAt,
      })
      .from(repeats)
      .where(
        and(eq(repeats.accountId, accountId), eq(repeats.product, product), lt(repeats.keyVersion, keys.version), live),
      );
  // The first statement also reads the stale rows: 90 keys and the rest make 97 parameters, under D1's 100.
  const reads = chunks(wanted, 90).map((part, i) =>
    rekeyed && i === 0 ? unionAll(byKey(part), stale(rekeyed)) : byKey(part),
  );
  const rows = await currentRows(
    db,
    "repeats",
    accountId,
    product,
    (await Promise.all(reads)).flat(),
    new Set(wanted),
    rekeyed,
  );
  return new Map([...rows].map(([key, row]) => [key, { result: row.result, createdAt: row.createdAt }]));
}

/** Statements that start (or restart) the window of each answer: 6 parameters a row. */
export function rememberRepeats(
  db: Database,
  accountId: string,
  product: string,
  answers: { key: string; result: unknown }[],
  now: number,
  keyVersion = 0,
): BatchItem<"sqlite">[] {
  return chunks(answers, 16).map((part) =>
    db
      .insert(repeats)
      .values(part.map(({ key, result }) => ({ accountId, product, key, result, keyVersion, createdAt: now })))
      .onConflictDoUpdate({
        target: [repeats.accountId, repeats.product, repeats.key],
        set: {
          result: sql`excluded.result`,
          keyVersion: sql`excluded.key_version`,
          createdAt: sql`excluded.created_at`,
        },
      }),
  );
}

/** Retention: markers past the window answer nothing, so they go. */
export const sweepRepeats = (db: Database, now: number) =>
  db.delete(repeats).where(lt(repeats.createdAt, now - REPEAT_WINDOW_MS));
