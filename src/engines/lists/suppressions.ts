import { z } from "zod";
import type { StoredSuppression } from "../../../durable-objects/account-object";
import type { Database } from "../../db/client";
import type { SuppressingProduct } from "../product";
import { listsOf, parseStored, rekeyAll } from "./account-lists";

/**
 * Every product's suppression list, keyed by (product, key) in the account's object (durable-objects/account/lists.ts).
 * Batches, bulk rows and monitor runs answer a suppressed value from its stored answer, free; a single lookup never
 * consults the list and may take a value off it. The walk writes verdicts through the object's `writeLists`
 * (src/engines/walk/settle.ts); these are the reads and the list routes' changes.
 */
export type SuppressionRow = Omit<StoredSuppression, "result"> & { accountId: string; result: unknown };

const withAccount = (accountId: string, row: StoredSuppression): SuppressionRow => ({
  ...row,
  accountId,
  result: parseStored(row.result),
});

export interface Suppress {
  key: string;
  reason: string;
  result: unknown;
}

/** Manual entries; values already listed stay as they are. Returns how many were added. */
export function addSuppressions(
  db: Database,
  accountId: string,
  product: string,
  added: { entries: Suppress[]; now: number; keyVersion?: number | undefined },
): Promise<number> {
  return listsOf(db, accountId).addSuppressions(product, added.entries, added.now, added.keyVersion ?? 0);
}

export function removeSuppressions(db: Database, accountId: string, product: string, keys: string[]): Promise<number> {
  return listsOf(db, accountId).removeSuppressions(product, keys);
}

export async function removeSuppression(
  db: Database,
  accountId: string,
  product: string,
  id: number,
): Promise<SuppressionRow | null> {
  const row = await listsOf(db, accountId).removeSuppression(product, id);
  return row ? withAccount(accountId, row) : null;
}

/** Which page of a list (`PER_PAGE` rows), and optionally one key's entries only. */
export interface PageAt {
  page: number;
  key?: string | undefined;
}

/** One page (`PER_PAGE` rows), newest first, optionally for one key. */
export async function listSuppressions(db: Database, accountId: string, product: string, at: PageAt) {
  const { rows, total } = await listsOf(db, accountId).listSuppressions(product, at.page, at.key);
  return { rows: rows.map((row) => withAccount(accountId, row)), total };
}

/** Re-keys the account's entries of an older key version (address), as every list read or change by key must first. */
const current = (db: Database, accountId: string, product: SuppressingProduct) =>
  rekeyAll(db, { table: "suppressions", accountId, product: product.name, keys: product.keys });

/** One page of the product's list (`listSuppressions`), its entries of an older key version re-keyed first. */
export async function suppressionPage(db: Database, accountId: string, product: SuppressingProduct, at: PageAt) {
  await current(db, accountId, product);
  return listSuppressions(db, accountId, product.name, at);
}

/**
 * The bodies of `POST` and `DELETE /{product}/suppressions` (the list under the product's field, at most 1,000; adding
 * takes a reason too), shared by the routes and the dashboard's form.
 */
export function suppressionBodies(product: SuppressingProduct) {
  const values = z.object({ [product.suppressions!.listField]: z.array(product.input).min(1).max(1000) });
  return { values, add: values.extend({ reason: z.string().min(1).max(64).optional() }) };
}

/** What adding answers: how many were added, and the values refused, each spelled as sent. */
export interface Added {
  added: number;
  /** Values the product cannot read: not suppressed. */
  invalid: string[];
  /** Test values: never suppressed. */
  test_values: string[];
}

const spelled = (input: unknown) => (typeof input === "string" ? input : JSON.stringify(input));

/**
 * Suppresses values by hand (`POST /{product}/suppressions`, the dashboard's form): normalized like lookups, one entry
 * per key, values already listed left as they are. Refusals are values: test values and unreadable ones come back in
 * `test_values` and `invalid`, and nothing is stored for them.
 */
export async function suppressByHand(
  db: Database,
  accountId: string,
  product: SuppressingProduct,
  asked: { inputs: unknown[]; reason?: string | undefined },
): Promise<Added> {
  const { inputs, reason = "manual" } = asked;
  const lists = product.suppressions!;
  const manual = inputs
    .filter((input) => !product.isSample(input))
    .map((input) => ({ input, entry: lists.manual(input) }));
  const entries = new Map<string, Suppress>();
  for (const { entry } of manual) if (entry) entries.set(entry.key, { ...entry, reason });
  await current(db, accountId, product);
  const added = await addSuppressions(db, accountId, product.name, {
    entries: [...entries.values()],
    now: Date.now(),
    keyVersion: product.keys?.version,
  });
  return {
    added,
    invalid: manual.filter((m) => !m.entry).map((m) => spelled(m.input)),
    test_values: inputs.filter((input) => product.isSample(input)).map(spelled),
  };
}
