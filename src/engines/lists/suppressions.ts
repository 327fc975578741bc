import { and, count, desc, eq, inArray, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../db/client";
import { PER_PAGE } from "../../db/listing";
import { suppressions } from "../../db/schema";
import { chunks } from "../../db/chunks";
import { unionAll } from "drizzle-orm/sqlite-core";
import { currentRows, staleRowsQuery, type KeyVersion } from "../rekey";

/**
 * Every product's suppression list, keyed by (account, product, key). Batches, bulk rows and monitor runs answer a
 * suppressed value from its stored answer, free; a single lookup never consults the list and may take a value off it.
 */
export type SuppressionRow = typeof suppressions.$inferSelect;
export type SuppressionSource = SuppressionRow["source"];

/**
 * The stored answers of the suppressed values among `keys`. With `rekeyed` (a product whose key function changed), the
 * account's rows keyed by an older version are read in the same statement and re-keyed (src/engines/rekey.ts).
 */
export async function suppressedAnswers(
  db: Database,
  accountId: string,
  product: string,
  keys: string[],
  rekeyed?: KeyVersion,
): Promise<Map<string, unknown>> {
  const wanted = [...new Set(keys)];
  const byKey = (part: string[]) =>
    db
      .select({ key: suppressions.key, keyVersion: suppressions.keyVersion, result: suppressions.result })
      .from(suppressions)
      .where(
        and(eq(suppressions.accountId, accountId), eq(suppressions.product, product), inArray(suppressions.key, part)),
      );
  // The first statement also reads the stale rows: 90 keys and the rest make 95 parameters, under D1's 100.
  const reads = chunks(wanted, 90).map((part, i) =>
    rekeyed && i === 0
      ? unionAll(byKey(part), staleRowsQuery(db, "suppressions", accountId, product, rekeyed))
      : byKey(part),
  );
  const rows = await currentRows(
    db,
    "suppressions",
    accountId,
    product,
    (await Promise.all(reads)).flat(),
    new Set(wanted),
    rekeyed,
  );
  const found = new Map<string, unknown>();
  for (const [key, row] of rows) if (row.result !== null) found.set(key, row.result);
  return found;
}

export interface Suppress {
  key: string;
  reason: string;
  result: unknown;
}

/**
 * Adds values (or refreshes the stored answer of values already listed, keeping their source). Feedback takes an entry
 * over: what the account's own sending reported outranks a verdict.
 */
export function suppressStatements(
  db: Database,
  accountId: string,
  product: string,
  entries: Suppress[],
  source: SuppressionSource,
  now: number,
  keyVersion = 0,
): BatchItem<"sqlite">[] {
  return entries.map((e) =>
    db
      .insert(suppressions)
      .values({
        accountId,
        product,
        key: e.key,
        reason: e.reason,
        source,
        result: e.result,
        keyVersion,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [suppressions.accountId, suppressions.product, suppressions.key],
        set: { result: e.result, reason: e.reason, ...(source === "feedback" ? { source } : {}) },
      }),
  );
}

/**
 * A single re-verify takes a value off the list, except an entry feedback put there: a bounce or complaint reported by
 * the account's sending stays until the account removes it (a mailbox that accepts at RCPT may still bounce).
 */
export function unsuppressStatements(
  db: Database,
  accountId: string,
  product: string,
  keys: string[],
): BatchItem<"sqlite">[] {
  return chunks(keys, 90).map((part) =>
    db
      .delete(suppressions)
      .where(
        and(
          eq(suppressions.accountId, accountId),
          eq(suppressions.product, product),
          inArray(suppressions.key, part),
          ne(suppressions.source, "feedback"),
        ),
      ),
  );
}

/** Manual entries; values already listed stay as they are. Returns how many were added. */
export async function addSuppressions(
  db: Database,
  accountId: string,
  product: string,
  entries: Suppress[],
  now: number,
  keyVersion = 0,
): Promise<number> {
  let added = 0;
  for (const part of chunks(entries, 10)) {
    const rows = part.map((e) => ({
      accountId,
      product,
      key: e.key,
      reason: e.reason,
      source: "manual" as const,
      result: e.result,
      keyVersion,
      createdAt: now,
    }));
    added += (await db.insert(suppressions).values(rows).onConflictDoNothing().returning({ id: suppressions.id }))
      .length;
  }
  return added;
}

export async function removeSuppressions(
  db: Database,
  accountId: string,
  product: string,
  keys: string[],
): Promise<number> {
  let removed = 0;
  for (const part of chunks(keys, 90)) {
    const deleted = await db
      .delete(suppressions)
      .where(
        and(eq(suppressions.accountId, accountId), eq(suppressions.product, product), inArray(suppressions.key, part)),
      )
      .returning({ id: suppressions.id });
    removed += deleted.length;
  }
  return removed;
}

export async function removeSuppression(
  db: Database,
  accountId: string,
  product: string,
  id: number,
): Promise<SuppressionRow | null> {
  const [row] = await db
    .delete(suppressions)
    .where(and(eq(suppressions.id, id), eq(suppressions.accountId, accountId), eq(suppressions.product, product)))
    .returning();
  return row ?? null;
}

/** One page, newest first, optionally for one key. */
export async function listSuppressions(db: Database, accountId: string, product: string, page: number, key?: string) {
  const where = and(
    eq(suppressions.accountId, accountId),
    eq(suppressions.product, product),
    key ? eq(suppressions.key, key) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(suppressions)
      .where(where)
      .orderBy(desc(suppressions.id))
      .limit(PER_PAGE)
      .offset((page - 1) * PER_PAGE),
    db.select({ n: count() }).from(suppressions).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
