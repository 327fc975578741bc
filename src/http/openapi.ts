import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "./errors";
import { hoistSharedSchemas } from "./openapi-components";

/** What a middleware contributes to its route's OpenAPI operation. Parts from all middleware of a route are merged. */
export interface RouteDoc {
  /** The operation's stable name (src/http/operation-ids.ts): given by the route's own `describe`, never by a part. */
  operationId?: string;
  summary?: string;
  description?: string;
  tag?: string;
  auth?: "secret" | "publishable" | "none";
  body?: z.ZodType;
  /** The largest body the route reads, in bytes (`x-max-bytes` on its requestBody). */
  bodyBytes?: number;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Schema of `data` in the success envelope. */
  response?: z.ZodType;
  /** A success answered as a file of this type (`text/csv`) rather than the JSON envelope. */
  file?: "text/csv";
  /**
   * Schema of `meta` without `request_id` (always added); `null` for the browser endpoints, which answer without meta.
   */
  meta?: z.ZodObject | null;
  status?: number;
  errors?: ErrorCode[];
}

const DOC = Symbol.for("verification-api.route-doc");

type Documented = { [DOC]?: RouteDoc };

/** Tags a middleware with documentation; the OpenAPI builder reads it back from the app's route table. */
export function attachDoc<M extends MiddlewareHandler>(middleware: M, doc: RouteDoc): M {
  return Object.assign(middleware, { [DOC]: doc });
}

/** What a route declares of itself: its documentation, with the operation id every operation must have. */
export type OperationDoc = RouteDoc & { operationId: string };

/** A pass-through middleware that only documents its route; a route cannot be described without its operation id. */
export const describe = (doc: OperationDoc): MiddlewareHandler => attachDoc(async (_c, next) => next(), doc);

interface RouteEntry {
  method: string;
  path: string;
  handler: unknown;
}

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
};

const toOpenApiPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");

function parameters(schema: z.ZodType | undefined, location: "query" | "path") {
  if (!schema) return [];
  const object = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const errorEnvelope = {
  type: "object",
  required: ["success", "error"],
  properties: {
    success: { const: false },
    error: {
      type: "object",
      required: ["code", "message", "request_id"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS) },
        message: { type: "string" },
        request_id: { type: "string" },
        errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

function successEnvelope(doc: RouteDoc) {
  const data = doc.response ? jsonSchema(doc.response, "output") : {};
  if (doc.meta === null) {
    return {
      type: "object",
      required: ["success", "data"],
      properties: { success: { const: true }, data },
      additionalProperties: false,
    };
  }
  const meta = jsonSchema((doc.meta ?? z.object({})).extend({ request_id: z.string() }), "output");
  return {
    type: "object",
    required: ["success", "data", "meta"],
    properties: { success: { const: true }, data, meta },
    additionalProperties: false,
  };
}

/** A request and the answer it gets, shown on the operation (values from the tests, so they are true). */
export interface OperationExample {
  summary: string;
  /** Filled into the path's `{name}` segments. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The answer's HTTP status; the operation's success status when absent. */
  status?: number;
  response: unknown;
}

/** What the document says beyond the routes: tags with their descriptions, and examples keyed `METHOD /path`. */
export interface DocumentOptions {
  description?: string;
  tags?: { name: string; description: string }[];
  /** The operation's tag from its route doc's `tag` and its path (e.g. engine routes grouped under their product). */
  tagOf?: (tag: string | undefined, path: string) => string | undefined;
  /** Keyed like `POST /api/v1/email` (path as in the document). */
  examples?: Record<string, readonly OperationExample[]>;
  /** OpenAPI 3.1 `webhooks`: what the API posts to its users' receivers. */
  webhooks?: Record<string, unknown>;
}

const SECURITY: Record<NonNullable<RouteDoc["auth"]>, Record<string, string[]>[]> = {
  secret: [{ secretKey: [] }],
  publishable: [{ publishableKey: [] }],
  none: [],
};

function withExamples(
  op: ReturnType<typeof operation>,
  examples: readonly OperationExample[] | undefined,
  successStatus: string,
) {
  if (!examples?.length) return op;
  const named = (pick: (example: OperationExample) => unknown, list: readonly OperationExample[]) =>
    Object.fromEntries(
      list.map((example, i) => [`example${i + 1}`, { summary: example.summary, value: pick(example) }]),
    );
  // A GET's request example is its parameters': the first example's value, typed as the schema says (a URL has text).
  type Param = { name: string; in: string; schema?: { type?: string }; example?: unknown };
  for (const param of (op.parameters ?? []) as Param[]) {
    const raw = examples
      .map((example) => (param.in === "query" ? example.query : example.params)?.[param.name])
      .find((value) => value !== undefined);
    if (raw === undefined) continue;
    const type = param.schema?.type;
    param.example = type === "integer" || type === "number" ? Number(raw) : type === "boolean" ? raw === "true" : raw;
  }
  const withBody = examples.filter((example) => example.body !== undefined);
  const body = op.requestBody as { content: Record<string, Record<string, unknown>> } | undefined;
  if (body && withBody.length) body.content["application/json"]!.examples = named((example) => example.body, withBody);
  const responses = op.responses as Record<string, { content: Record<string, Record<string, unknown>> }>;
  for (const [status, list] of Map.groupBy(examples, (example) => String(example.status ?? successStatus))) {
    // The answer's one media type: the JSON envelope, or the file a success answers with (`text/csv`).
    const content = Object.values(responses[status]?.content ?? {})[0];
    if (content) content.examples = named((example) => example.response, list);
  }
  return op;
}

function operation(doc: RouteDoc) {
  const success = doc.file
    ? { [doc.file]: { schema: { type: "string" } } }
    : { "application/json": { schema: successEnvelope(doc) } };
  const responses: Record<string, unknown> = {
    [String(doc.status ?? 200)]: { description: "Success", content: success },
  };
  const codes = new Set<ErrorCode>(["SERVER_ERROR", ...(doc.errors ?? [])]);
  if (doc.body || doc.query || doc.params) codes.add("VALIDATION_FAILED");
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(String(ERROR_STATUS[code]), [...(byStatus.get(String(ERROR_STATUS[code])) ?? []), code]);
  for (const [status, listed] of byStatus) {
    // The envelope, narrowed to the codes this operation can answer with this status.
    const schema = {
      allOf: [
        { $ref: "#/components/schemas/Error" },
        { properties: { error: { properties: { code: { enum: listed } } } } },
      ],
    };
    responses[status] = { description: listed.join(", "), content: { "application/json": { schema } } };
  }
  return {
    operationId: doc.operationId,
    ...(doc.summary ? { summary: doc.summary } : {}),
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.tag ? { tags: [doc.tag] } : {}),
    security: SECURITY[doc.auth ?? "none"],
    parameters: [...parameters(doc.params, "path"), ...parameters(doc.query, "query")],
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            ...(doc.bodyBytes ? { "x-max-bytes": doc.bodyBytes } : {}),
            content: { "application/json": { schema: jsonSchema(doc.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

const SECURITY_SCHEMES: Record<string, unknown> = {
  secretKey: {
    type: "http",
    scheme: "bearer",
    description:
      "A secret key `sk_live_...` (or the sandbox key), as `Authorization: Bearer sk_live_...`. Server-side only.",
  },
  publishableKey: {
    type: "apiKey",
    in: "header",
    name: "Origin",
    description:
      "A publishable key `pk_live_...`, sent as `key` in the JSON body of a browser endpoint (`/public`; " +
      "OpenAPI has no body location for keys). The page's `Origin` must be one of the key's allowed domains; a " +
      "key with a bot-challenge pair also needs `challenge_token`.",
  },
};

/** OpenAPI 3.1 for every documented route in `routes` under `prefix`: built from the schemas that validate requests. */
export function openApiDocument(routes: readonly RouteEntry[], prefix = "/api/v1", options: DocumentOptions = {}) {
  const docs = new Map<string, RouteDoc>();
  for (const route of routes) {
    const part = (route.handler as Documented)[DOC];
    if (!part || route.method === "ALL" || !route.path.startsWith(prefix)) continue;
    const id = `${route.method.toLowerCase()} ${toOpenApiPath(route.path)}`;
    const merged = { ...docs.get(id), ...part, errors: [...(docs.get(id)?.errors ?? []), ...(part.errors ?? [])] };
    docs.set(id, merged);
  }
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, string>();
  for (const [id, doc] of docs) {
    const [method, path] = id.split(" ") as [string, string];
    // `describe` requires the id; a route documented only by its middleware parts, or two routes named alike, would
    // give generators and tools a name made up from the path, or one name for two operations.
    if (!doc.operationId) throw new Error(`${id} has no operationId: give it one in its describe({...})`);
    const taken = operationIds.get(doc.operationId);
    if (taken) throw new Error(`operationId ${doc.operationId} names both ${taken} and ${id}`);
    operationIds.set(doc.operationId, id);
    const tag = options.tagOf ? options.tagOf(doc.tag, path) : doc.tag;
    const op = withExamples(
      operation({ ...doc, tag }),
      options.examples?.[`${method.toUpperCase()} ${path}`],
      String(doc.status ?? 200),
    );
    (paths[path] ??= {})[method] = op;
  }
  const schemas: Record<string, unknown> = { Error: errorEnvelope };
  // JSON Schema values are plain JSON: the hoisting pass only reads and rebuilds them.
  hoistSharedSchemas(
    paths as Parameters<typeof hoistSharedSchemas>[0],
    schemas as Parameters<typeof hoistSharedSchemas>[1],
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Verification API",
      version: "1.0.0",
      ...(options.description ? { description: options.description } : {}),
      // The API is a service, not published code: its terms are the operator's.
      license: { name: "Proprietary" },
    },
    // `/`: the page's own origin. The route serving the document names the origin it was asked at.
    servers: [{ url: "/" }],
    ...(options.tags ? { tags: options.tags } : {}),
    paths,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

/**
 * The merged documentation of one route (`POST`, `/api/v1/email`), so another surface (the tool protocol) describes
 * its inputs and answers with the very schemas that validate the HTTP request.
 */
export function routeDoc(routes: readonly RouteEntry[], method: string, path: string): RouteDoc | undefined {
  let merged: RouteDoc | undefined;
  for (const route of routes) {
    const part = (route.handler as Documented)[DOC];
    if (part && route.method === method && route.path === path) merged = { ...merged, ...part };
  }
  return merged;
}
