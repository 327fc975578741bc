import { SELF } from "cloudflare:test";
import { registeredProducts } from "../../src/products/registry";

/**
 * The operations of the served OpenAPI document (GET /api/v1/openapi.json), read generically so that a new route is
 * covered by the hostile-input tests without being listed: its path and query parameters, its JSON body schema and
 * the body's byte limit (`x-max-bytes`).
 */
export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  maxItems?: number;
  minItems?: number;
  maxLength?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  minimum?: number;
  maximum?: number;
};

export interface Operation {
  method: string;
  path: string;
  auth: "secret" | "none";
  params: { name: string; in: "path" | "query"; schema: Schema }[];
  body: Schema | null;
  maxBytes: number | null;
}

interface RawOperation {
  security?: unknown[];
  parameters?: { name: string; in: "path" | "query"; schema: Schema }[];
  requestBody?: { "x-max-bytes"?: number; content: { "application/json": { schema: Schema } } };
}

export async function servedOperations(): Promise<Operation[]> {
  const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, RawOperation>>;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      auth: (op.security ?? []).length ? ("secret" as const) : ("none" as const),
      params: op.parameters ?? [],
      body: op.requestBody?.content["application/json"].schema ?? null,
      maxBytes: op.requestBody?.["x-max-bytes"] ?? null,
    })),
  );
}

/** The first branch of a union, the schema itself otherwise. */
const branch = (schema: Schema): Schema =>
  schema.anyOf?.find((s) => s.type !== "null") ?? schema.oneOf?.[0] ?? schema.allOf?.[0] ?? schema;
const typeOf = (schema: Schema) => [branch(schema).type].flat()[0];

/** A plausible value for `schema` (required fields only): the shape a hostile variant starts from. */
export function sampleOf(input: Schema, depth = 0): unknown {
  const schema = branch(input);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  switch (typeOf(schema)) {
    case "object":
      return Object.fromEntries(
        (schema.required ?? [])
          .filter((k) => schema.properties?.[k])
          .map((k) => [k, sampleOf(schema.properties![k]!, depth + 1)]),
      );
    case "array":
      return depth > 4
        ? []
        : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sampleOf(schema.items ?? {}, depth + 1));
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    case "string":
      return schema.format === "uri" ? "https://example.com/hook" : "x";
    default:
      return "x";
  }
}

/** Hostile text of each family: NUL, RTL override, SQL, CSV formula, path traversal, markup, lone surrogate, long. */
export const HOSTILE_STRINGS: [string, string][] = [
  ["nul", "a\u0000b\u0000"],
  ["rtl", "\u202egnp.exe\u202d\u2066x\u2069"],
  ["sql", "1' OR '1'='1'; DROP TABLE accounts; --"],
  ["formula", "=cmd|' /C calc'!A0"],
  ["traversal", "../../../../etc/passwd"],
  ["markup", "<script>alert(1)</script>${{7*7}}"],
  ["surrogate", "\ud800x\udfff"],
  ["long", "A".repeat(20_000)],
];

/** Every string leaf of `value` replaced by `text`. */
export function everyString(value: unknown, text: string): unknown {
  if (typeof value === "string") return text;
  if (Array.isArray(value)) return value.map((v) => everyString(v, text));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, everyString(v, text)]));
  return value;
}

/** A value of another type than `schema` asks for. */
function wrongType(schema: Schema): unknown {
  switch (typeOf(schema)) {
    case "string":
      return 12345;
    case "integer":
    case "number":
      return "12";
    case "boolean":
      return "true";
    case "array":
      return { not: "a list" };
    case "object":
      return ["not", "an", "object"];
    default:
      return { unexpected: [] };
  }
}

/** Each documented array (top level) at one item over its limit. */
function overLimitLists(schema: Schema, sample: Record<string, unknown>): Record<string, unknown> | null {
  const lists = Object.entries(schema.properties ?? {}).filter(([, p]) => branch(p).maxItems !== undefined);
  if (!lists.length) return null;
  const body = { ...sample };
  for (const [name, p] of lists)
    body[name] = Array.from({ length: branch(p).maxItems! + 1 }, () =>
      everyString(sampleOf(branch(p).items ?? {}), "=1+1"),
    );
  return body;
}

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** Malformed bodies for one JSON body schema: [family, raw body bytes or text]. */
export function hostileBodies(input: Schema): [string, string | Uint8Array][] {
  const schema = branch(input);
  const sample = (sampleOf(schema) ?? {}) as Record<string, unknown>;
  const props = Object.entries(schema.properties ?? {});
  const bodies: [string, string | Uint8Array][] = [
    ["missing fields", "{}"],
    ["wrong types", JSON.stringify(Object.fromEntries(props.map(([k, p]) => [k, wrongType(p)])))],
    [
      "extra fields and __proto__",
      `{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},` +
        `${JSON.stringify({ ...sample, unexpected_field: "x" }).slice(1)}`,
    ],
    ["deep nesting", `{"${props[0]?.[0] ?? "x"}":${nested(20_000)}}`],
    ["deep nesting (top level)", nested(20_000)],
    ["huge strings", JSON.stringify(everyString(sample, "h".repeat(400_000)))],
    ["invalid JSON", `{"${props[0]?.[0] ?? "x"}": "unterminated`],
    [
      "invalid UTF-8",
      new Uint8Array([
        ...new TextEncoder().encode(`{"${props[0]?.[0] ?? "x"}":"`),
        0xff,
        0xfe,
        0xc0,
        0xaf,
        0xed,
        0xa0,
        0x80,
        ...new TextEncoder().encode('"}'),
      ]),
    ],
    ["top-level array", "[]"],
    ["top-level null", "null"],
  ];
  const lists = overLimitLists(schema, sample);
  if (lists) bodies.push(["over-limit lists", JSON.stringify(lists)]);
  for (const [family, text] of HOSTILE_STRINGS)
    bodies.push([`hostile strings: ${family}`, JSON.stringify(everyString(sample, text))]);
  return bodies;
}

/** Path parameter values that reach the handler: real ids where the route needs them (`fb_` key, provider). */
export function paramValue(operation: Operation, name: string, schema: Schema, context: { fbKey: string }): string {
  if (name === "feedbackKey") return context.fbKey;
  if (name === "provider") {
    const product = registeredProducts().find((p) => operation.path.startsWith(`/api/v1/${p.name}/`));
    return Object.keys(product?.feedback?.providers ?? {})[0] ?? "x";
  }
  const type = typeOf(schema);
  return type === "integer" || type === "number" ? "1" : String(sampleOf(schema));
}

/** Hostile path parameter values (raw; encoded into the path as a client would). */
export const HOSTILE_PARAMS: [string, string][] = [
  ["traversal", "../../admin/v1/accounts"],
  ["encoded traversal", "..%2F..%2F..%2Fadmin%2Fv1%2Faccounts"],
  ["nul", "1\u0000"],
  ["rtl", "\u202e1"],
  ["sql", "1 OR 1=1"],
  ["formula", "=1+1"],
  ["long", "9".repeat(5_000)],
];
