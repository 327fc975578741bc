import { env, SELF } from "cloudflare:test";
import { Validator, type Schema } from "@cfworker/json-schema";
import { recordAnswer } from "./openapi-record";

/**
 * Every JSON response a Worker test receives is checked against the served OpenAPI document (`call` in helpers.ts and
 * `fetchChecked` run it), so a response that drifts from the documented schema fails the test that received it.
 */
interface Operation {
  responses: Record<string, { content?: { "application/json"?: { schema: Schema } } }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

let served: Promise<{ document: Document; routes: { pattern: RegExp; path: string }[] }> | undefined;
const validators = new Map<string, Validator>();

/** `{method path status}` of each response checked in this test file (for the coverage figure). */
export const checkedResponses = new Set<string>();

async function loadDocument() {
  served ??= SELF.fetch("https://api.test/api/v1/openapi.json")
    .then((response) => response.json() as Promise<Document>)
    .then((document) => ({
      document,
      // Literal segments before templated ones, so /email/bulk/{jobId} never shadows /email/bulk/jobs-like literals.
      routes: Object.keys(document.paths)
        .sort((a, b) => a.split("{").length - b.split("{").length || b.length - a.length)
        .map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{([^}]+)\}/g, "(?<$1>[^/]+)")}$`) })),
    }));
  return served;
}

function validator(key: string, schema: Schema, components: Record<string, unknown>) {
  let found = validators.get(key);
  if (!found) {
    found = new Validator({ ...schema, components } as Schema, "2020-12", false);
    validators.set(key, found);
  }
  return found;
}

/**
 * Throws when `body` (a parsed JSON response) is not what the served document says `method url` answers with `status`.
 */
export async function assertDocumentedResponse(
  method: string,
  url: string,
  status: number,
  body: unknown,
): Promise<void> {
  const path = new URL(url).pathname;
  if (!path.startsWith("/api/v1/") || path === "/api/v1/openapi.json") return;
  const { document, routes } = await loadDocument();
  const route = routes.find((r) => r.pattern.test(path));
  const operation = route ? document.paths[route.path]![method.toLowerCase()] : undefined;
  let key: string;
  let schema: Schema | undefined;
  if (operation) {
    key = `${method} ${route!.path} ${status}`;
    schema = operation.responses[String(status)]?.content?.["application/json"]?.schema;
    if (!schema)
      throw new Error(`${method} ${route!.path} answered ${status}, which the OpenAPI document does not list`);
  } else if (status === 404 || status === 405) {
    key = `${method} (unrouted) ${status}`;
    schema = { $ref: "#/components/schemas/Error" };
  } else {
    throw new Error(`${method} ${path} answered ${status} but is not in the OpenAPI document`);
  }
  checkedResponses.add(key);
  const result = validator(key, schema, document.components).validate(body);
  if (!result.valid) {
    const errors = result.errors.slice(-4).map((e) => `${e.instanceLocation}: ${e.error}`);
    throw new Error(
      `${key}: response does not match the OpenAPI document:\n  ${errors.join(
        "\n  ",
      )}\n${JSON.stringify(body).slice(0, 600)}`,
    );
  }
}

/**
 * SELF.fetch, with a JSON response checked against the OpenAPI document (and, under `npm run openapi:examples`, kept
 * as an example of its operation). The body stays readable.
 */
export async function fetchChecked(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await SELF.fetch(url, init);
  const type = response.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    const body = await response.clone().json();
    await assertDocumentedResponse(init.method ?? "GET", url, response.status, body);
    if (env.OPENAPI_RECORD) await record({ method: init.method ?? "GET", url, request: init.body, response, body });
  } else if (type.startsWith("text/csv") && env.OPENAPI_RECORD) {
    await record({
      method: init.method ?? "GET",
      url,
      request: init.body,
      response,
      body: await response.clone().text(),
    });
  }
  return response;
}

/**
 * Under `npm run openapi:examples`: reads the document before the file's tests, so the recording's own request is not
 * counted by a test that counts the requests it makes (test/platform/round-trips.test.ts).
 */
export async function prepareRecording(): Promise<void> {
  if (env.OPENAPI_RECORD) await loadDocument();
}

/** Keeps a documented operation's real answer as a candidate example (test/openapi-record.ts). */
async function record(answer: { method: string; url: string; request: unknown; response: Response; body: unknown }) {
  const url = new URL(answer.url);
  const { routes } = await loadDocument();
  const route = routes.find((r) => r.pattern.test(url.pathname));
  if (!route || !answer.response.ok) return;
  recordAnswer({
    operation: `${answer.method.toUpperCase()} ${route.path}`,
    params: { ...route.pattern.exec(url.pathname)?.groups },
    query: Object.fromEntries(url.searchParams),
    request: answer.request,
    status: answer.response.status,
    response: answer.body,
  });
}
