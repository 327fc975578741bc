import { z } from "zod";
import { database } from "../db/client";
import { addSuppressions, listSuppressions, removeSuppression } from "../engines/lists/suppressions";
import type { Product } from "../engines/product";
import { fieldErrors } from "../http/validation";
import { registeredProducts } from "../products/registry";

/**
 * Suppression lists as the dashboard edits them, through the exported functions of src/engines/lists/suppressions.ts
 * only (their storage may move; these stay). Adding follows `POST /{product}/suppressions`: values are normalized
 * like lookups, test values are never suppressed, values that cannot be read come back as invalid.
 */
export const listedProducts = (): Product[] => registeredProducts().filter((p) => p.suppressions);

export const pageOf = (env: Env, accountId: string, product: Product, page: number) =>
  listSuppressions(database(env), accountId, product.name, page);

export const removeEntry = (env: Env, accountId: string, product: Product, id: number) =>
  Number.isSafeInteger(id) && id > 0
    ? removeSuppression(database(env), accountId, product.name, id)
    : Promise.resolve(null);

export interface Added {
  added: number;
  invalid: string[];
  test_values: string[];
}

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
  text: string,
  reason: string,
): Promise<Added | { errors: Record<string, string[]> }> {
  const lists = product.suppressions!;
  const values = valuesOf(text);
  if (values === null) return { errors: { [lists.listField]: ["Give one value per line, or a JSON array."] } };
  const schema = z.object({
    [lists.listField]: z.array(product.input).min(1).max(1000),
    reason: z.string().min(1).max(64).optional(),
  });
  const parsed = schema.safeParse({ [lists.listField]: values, ...(reason ? { reason } : {}) });
  if (!parsed.success) return { errors: fieldErrors(parsed.error) };
  const inputs = parsed.data[lists.listField] as unknown[];
  const manual = inputs
    .filter((input) => !product.isSample(input))
    .map((input) => ({ input, entry: lists.manual(input) }));
  const entries = new Map<string, { key: string; result: unknown; reason: string }>();
  for (const { entry } of manual) if (entry) entries.set(entry.key, { ...entry, reason: reason || "manual" });
  const spelled = (input: unknown) => (typeof input === "string" ? input : JSON.stringify(input));
  const added = await addSuppressions(
    database(env),
    accountId,
    product.name,
    [...entries.values()],
    Date.now(),
    product.keys?.version,
  );
  return {
    added,
    invalid: manual.filter((m) => !m.entry).map((m) => spelled(m.input)),
    test_values: inputs.filter((input) => product.isSample(input)).map(spelled),
  };
}
