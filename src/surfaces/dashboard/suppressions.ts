import { database } from "../../db/client";
import {
  removeSuppression,
  suppressByHand,
  suppressionBodies,
  suppressionPage,
  type Added,
} from "../../engines/lists/suppressions";
import type { Product } from "../../engines/product";
import { fieldErrors } from "../../http/validation";
import { registeredProducts } from "../../products/registry";

/**
 * Suppression lists as the dashboard edits them, through the exported functions of src/engines/lists/suppressions.ts
 * only (their storage may move; these stay), the ones the API's routes call: adding follows
 * `POST /{product}/suppressions` (values normalized like lookups, test values never suppressed, values that cannot be
 * read come back as invalid), and the list is read and changed with its entries of an older key version re-keyed.
 */
export const listedProducts = (): Product[] => registeredProducts().filter((p) => p.suppressions);

export const pageOf = (env: Env, accountId: string, product: Product, page: number) =>
  suppressionPage(database(env), accountId, product, { page });

export const removeEntry = (env: Env, accountId: string, product: Product, id: number) =>
  Number.isSafeInteger(id) && id > 0
    ? removeSuppression(database(env), accountId, product.name, id)
    : Promise.resolve(null);

/** The text of the add form: a JSON array (values with parts, such as address objects) or one value per line. */
const valuesOf = (text: string): unknown => {
  const trimmed = text.trim();
  if (!trimmed.startsWith("[")) return trimmed.split(/\r?\n/).flatMap((line) => (line.trim() ? [line.trim()] : []));
  try {
    return JSON.parse(trimmed);
  } catch {
    return null;
  }
};

/** Adds the form's values, answering as the API does (`added`, `invalid`, `test_values`) or with its field errors. */
export async function addFromForm(
  env: Env,
  accountId: string,
  product: Product,
  form: { text: string; reason: string },
): Promise<Added | { errors: Record<string, string[]> }> {
  const { text, reason } = form;
  const { listField } = product.suppressions!;
  const values = valuesOf(text);
  if (values === null) return { errors: { [listField]: ["Give one value per line, or a JSON array."] } };
  const parsed = suppressionBodies(product).add.safeParse({ [listField]: values, ...(reason ? { reason } : {}) });
  if (!parsed.success) return { errors: fieldErrors(parsed.error) };
  const body = parsed.data as Record<string, unknown> & { reason?: string };
  return suppressByHand(database(env), accountId, product, {
    inputs: body[listField] as unknown[],
    reason: body.reason,
  });
}
