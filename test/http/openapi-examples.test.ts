import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OPERATION_EXAMPLES } from "../../src/routes/openapi";
import { createAccount } from "../helpers";

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
      const account = await createAccount();
      const [method, path] = operation.split(" ") as [string, string];
      const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example.params?.[name] ?? ""));
      const url = example.query ? `${filled}?${new URLSearchParams(example.query)}` : filled;
      const response = await SELF.fetch(`https://api.test${url}`, {
        method,
        headers: { Authorization: `Bearer ${account.key}`, "Content-Type": "application/json" },
        body: example.body === undefined ? undefined : JSON.stringify(example.body),
      });
      expect(response.status).toBe(example.status ?? 200);
      expect(sameShape(example.response, await response.json())).toEqual([]);
    },
  );
});
