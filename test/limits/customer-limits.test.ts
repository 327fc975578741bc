import { describe, expect, it } from "vitest";
import { registeredProducts } from "../../src/products/registry";
import { MAX_BULK_ROWS } from "../../src/surfaces/bulk-acts";
import { SUBJECTS } from "../contract/helpers";
import { call, createAccount, json } from "../helpers";
import { listField, maxItems } from "./plain-bytes";

/**
 * Every customer count limit at the limit and one over, generated from the registry like the table of hops.ts (whose
 * rows name these tests): a batch of exactly its maximum answers 200 and one more 422; a monitor of exactly its
 * maximum entries is created and one more refused; a bulk run of one row over the maximum is refused (a run at the
 * maximum would look up 100,000 rows: hops.node.test.ts checks what it crosses instead).
 */

/** A value of the product's that every route accepts and the walk answers free and locally: its malformed sample. */
const sampleOf = (name: string): (() => unknown) => {
  const subject = SUBJECTS.find((s) => s.label === name);
  if (!subject) throw new Error(`no contract samples for ${name}`);
  return subject.samples.malformed;
};

const list = (name: string, n: number) => Array.from({ length: n }, sampleOf(name));

const withKey = async (body: unknown) => {
  const { key } = await createAccount({ pack: 10 });
  return json(body, { Authorization: `Bearer ${key}` });
};

/** The 422 names the list field, over its limit. */
async function refused(path: string, field: string, body: Record<string, unknown>) {
  const { status, body: answer } = await call(path, await withKey(body));
  expect(status).toBe(422);
  expect(answer.error!.code).toBe("VALIDATION_FAILED");
  expect(Object.keys(answer.error!.errors ?? {})).toContain(field);
}

const batches = registeredProducts().flatMap((product) =>
  (product.lookups?.routes ?? [])
    .filter((route) => route.kind === "batch" && route.request.json)
    .map((route) => {
      const { field, list: schema } = listField(route.request.json!);
      const max = maxItems(schema)!;
      return { name: product.name, path: `/api/v1${route.path}`, field, max, over: max + 1 };
    }),
);

describe("batch items", () => {
  it.each(batches)("POST $path takes $max items and refuses $over", async ({ name, path, field, max }) => {
    const at = await call<{ results: unknown[] }>(path, await withKey({ [field]: list(name, max) }));
    expect(at.status).toBe(200);
    expect(at.body.data!.results).toHaveLength(max);
    await refused(path, field, { [field]: list(name, max + 1) });
  });
});

const monitors = registeredProducts()
  .flatMap((product) => [product, ...(product.companions ?? [])])
  .filter((product) => product.monitor)
  .map((product) => {
    const { listField: field, maxEntries: max, path } = product.monitor!;
    return { name: product.name, path: `/api/v1/${product.name}/${path ?? "monitors"}`, field, max, over: max + 1 };
  });

describe("monitor entries", () => {
  it.each(monitors)("POST $path takes $max entries and refuses $over", async ({ name, path, field, max }) => {
    const body = (n: number) => ({ name: "at the limit", cadence: "weekly", [field]: list(name, n) });
    const created = await call<{ monitor: Record<string, unknown[]> }>(path, await withKey(body(max)));
    expect(created.status).toBe(201);
    expect(created.body.data!.monitor[field]).toHaveLength(max);
    await refused(path, field, body(max + 1));
  });
});

const bulks = registeredProducts()
  .filter((product) => product.bulk)
  .map((product) => ({ name: product.name, field: product.bulk!.field, over: MAX_BULK_ROWS + 1 }));

describe("bulk rows", () => {
  it.each(bulks)("POST /api/v1/$name/bulk refuses $over rows", async ({ name, field }) => {
    const row = sampleOf(name)();
    await refused(`/api/v1/${name}/bulk`, field, { [field]: Array(MAX_BULK_ROWS + 1).fill(row) });
  });
});
