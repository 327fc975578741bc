import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { ipLists } from "./tables";
import { MAX_LISTS_PER_ACCOUNT, type ListMatchers } from "./lists";

/** An account's allow and deny lists in D1 (`ip_lists`). */
export type IpListRow = typeof ipLists.$inferSelect;

export interface ListFields {
  name: string;
  kind: "allow" | "deny";
  matchers: ListMatchers;
}

export const accountLists = (db: Database, accountId: string) =>
  db.select().from(ipLists).where(eq(ipLists.accountId, accountId)).orderBy(asc(ipLists.id));

export async function findList(db: Database, accountId: string, id: number): Promise<IpListRow | null> {
  return (
    (await db
      .select()
      .from(ipLists)
      .where(and(eq(ipLists.id, id), eq(ipLists.accountId, accountId)))
      .get()) ?? null
  );
}

/**
 * Creates a list unless the account already has `MAX_LISTS_PER_ACCOUNT`: the count and the insert are one statement,
 * so concurrent creations cannot pass the limit. Null at the limit.
 */
export async function createList(
  d1: D1Database,
  accountId: string,
  fields: ListFields,
  now: number,
): Promise<IpListRow | null> {
  const { entries, ranges, asns } = fields.matchers;
  const row = await d1
    .prepare(
      `INSERT INTO ip_lists (account_id, name, kind, entries, ranges, asns, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7 WHERE (SELECT COUNT(*) FROM ip_lists WHERE account_id = ?1) < ?8
       RETURNING id`,
    )
    .bind(
      accountId,
      fields.name,
      fields.kind,
      JSON.stringify(entries),
      JSON.stringify(ranges),
      JSON.stringify(asns),
      now,
      MAX_LISTS_PER_ACCOUNT,
    )
    .first<{ id: number }>();
  return row
    ? {
        id: row.id,
        accountId,
        name: fields.name,
        kind: fields.kind,
        entries,
        ranges,
        asns,
        createdAt: now,
        updatedAt: now,
      }
    : null;
}

export async function updateList(
  db: Database,
  update: { accountId: string; id: number; fields: Partial<ListFields>; now: number },
): Promise<IpListRow | null> {
  const { accountId, id, fields, now } = update;
  const [row] = await db
    .update(ipLists)
    .set({
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.kind !== undefined ? { kind: fields.kind } : {}),
      ...(fields.matchers
        ? { entries: fields.matchers.entries, ranges: fields.matchers.ranges, asns: fields.matchers.asns }
        : {}),
      updatedAt: now,
    })
    .where(and(eq(ipLists.id, id), eq(ipLists.accountId, accountId)))
    .returning();
  return row ?? null;
}

export async function deleteList(db: Database, accountId: string, id: number): Promise<IpListRow | null> {
  const [row] = await db
    .delete(ipLists)
    .where(and(eq(ipLists.id, id), eq(ipLists.accountId, accountId)))
    .returning();
  return row ?? null;
}
