import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Validator, type Schema } from "@cfworker/json-schema";
import type { OperationExample } from "../../src/http/openapi";
import { OPERATION_EXAMPLES } from "../../src/surfaces/api/openapi";
import recordedExamples from "../../src/surfaces/api/recorded-examples.json";
import { registeredProducts } from "../../src/products/registry";
import { admin, createAccount, type TestAccount } from "../helpers";
import { assertDocumentedResponse } from "../openapi-check";

/** The shape of a JSON value: its keys and the JSON types of its leaves (null matches anything, it is nullable). */
function sameShape(example: unknown, actual: unknown, at = "$"): string[] {
  if (example === null || actual === null) return [];
  const kind = (v: unknown) => (Array.isArray(v) ? "array" : typeof v);
  if (kind(example) !== kind(actual)) return [`${at}: ${kind(example)} in the example, ${kind(actual)} answered`];
  if (Array.isArray(example) && Array.isArray(actual)) {
    if (example.length !== actual.length)
      return [`${at}: ${example.length} items in the example, ${actual.length} answered`];
    return example.flatMap((item, i) => sameShape(item, actual[i], `${at}[${i}]`));
  }
  if (typeof example === "object") {
    const e = example as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = (o: Record<string, unknown>) => Object.keys(o).sort().join(",");
    if (keys(e) !== keys(a)) return [`${at}: keys ${keys(e)} in the example, ${keys(a)} answered`];
    return Object.keys(e).flatMap((key) => sameShape(e[key], a[key], `${at}.${key}`));
  }
  return [];
}

/** `POST /api/v1/{product}/public` operations: replayed with a publishable key from the page's origin. */
const BROWSER = new Set(
  registeredProducts().flatMap((p) =>
    (p.lookups?.routes ?? []).filter((r) => r.kind === "browser").map((r) => `POST /api/v1${r.path}`),
  ),
);

/** The headers and body an example is replayed with: a browser example's `key` is a publishable key of the account. */
async function replayed(operation: string, account: TestAccount, body: unknown) {
  if (!BROWSER.has(operation))
    return { headers: { Authorization: `Bearer ${account.key}`, "Content-Type": "application/json" }, body };
  const { key } = await admin<{ key: string }>("POST", `/accounts/${account.accountId}/keys/publishable`, {
    user_id: account.userId,
    allowed_domains: ["shop.example"],
  });
  const headers = { Origin: "https://shop.example", "Content-Type": "application/json" };
  return { headers, body: { ...(body as object), key } };
}

const entries = Object.entries(OPERATION_EXAMPLES).flatMap(([operation, list]) =>
  list.map((example) => ({ operation, example })),
);

describe("the OpenAPI examples (each product's examples.json, read through the registry, and the account's)", () => {
  it("are shown on their operations in the served document", async () => {
    const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { examples?: object }> };
            responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>;
          }
        >
      >;
    };
    for (const { operation, example } of entries) {
      const [method, path] = operation.split(" ") as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op, operation).toBeDefined();
      const shown = Object.values(op!.responses["200"]?.content?.["application/json"]?.examples ?? {}).map(
        (e) => e.value,
      );
      expect(shown, operation).toContainEqual(example.response);
      if (example.body !== undefined)
        expect(
          Object.values(op!.requestBody!.content["application/json"]!.examples!).map(
            (e) => (e as { value: unknown }).value,
          ),
        ).toContainEqual(example.body);
    }
  });

  it.each(entries.map((e) => [`${e.operation}: ${e.example.summary}`, e] as const))(
    "%s answers as the example shows",
    async (_name, { operation, example }) => {
      // A credit to hold: a live lookup (not a test value) is refused 402 without one, even when it ends free.
      const account = await createAccount({ pack: 1 });
      const [method, path] = operation.split(" ") as [string, string];
      const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example.params?.[name] ?? ""));
      const url = example.query ? `${filled}?${new URLSearchParams(example.query)}` : filled;
      const { headers, body } = await replayed(operation, account, example.body);
      const response = await SELF.fetch(`https://api.test${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(response.status).toBe(example.status ?? 200);
      expect(sameShape(example.response, await response.json())).toEqual([]);
    },
  );
});

interface Operation {
  requestBody?: { content: Record<string, { schema: Schema; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>;
}

describe("real answers on every operation (src/surfaces/api/recorded-examples.json, npm run openapi:examples)", () => {
  it("every operation shows a response example, and a request example where it takes a body", async () => {
    const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const missing: string[] = [];
    let count = 0;
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(operations)) {
        count += 1;
        const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))![1];
        if (!Object.values(success.content ?? {})[0]?.examples) missing.push(`${method} ${path}: response`);
        if (op.requestBody && !op.requestBody.content["application/json"]?.examples)
          missing.push(`${method} ${path}: request`);
      }
    console.log(
      `[examples] operations with examples: ${count - new Set(missing.map((m) => m.split(":")[0])).size} of ${count}`,
    );
    expect(missing, "run `npm run openapi:examples` (a test must reach the operation) and commit").toEqual([]);
  });

  it.each(Object.entries(recordedExamples as Record<string, OperationExample[]>))(
    "%s: the recorded request and answer match the document's schemas",
    async (operation, [example]) => {
      const [method, path] = operation.split(" ") as [string, string];
      const url = `https://api.test${path.replace(/\{(\w+)\}/g, (_m, name: string) => example!.params?.[name] ?? "")}`;
      if (typeof example!.response !== "string")
        await assertDocumentedResponse(method, url, example!.status ?? 200, example!.response);
      const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
        paths: Record<string, Record<string, Operation>>;
        components: Record<string, unknown>;
      };
      // A body sent with an operation that takes none (a DELETE in a test) is not shown: nothing to check.
      const requestBody = doc.paths[path]![method.toLowerCase()]!.requestBody;
      if (example!.body === undefined || !requestBody) return;
      const schema = requestBody.content["application/json"]!.schema;
      const result = new Validator({ ...schema, components: doc.components } as Schema, "2020-12", false).validate(
        example!.body,
      );
      expect(result.errors.map((e) => `${e.instanceLocation}: ${e.error}`)).toEqual([]);
    },
  );
});
