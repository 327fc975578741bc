import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/http/errors";
import { admin, anotherKey, createAccount, accountObject, type TestAccount } from "../helpers";
import {
  HOSTILE_PARAMS,
  HOSTILE_STRINGS,
  hostileBodies,
  paramValue,
  sampleOf,
  servedOperations,
  type Operation,
} from "../hostile/operations";

/**
 * The hostile pass: every operation of the served OpenAPI document, found there (a new route is covered without being
 * listed), sent malformed bodies (wrong types, missing and extra fields, `__proto__`, deep nesting, huge strings,
 * invalid JSON, invalid UTF-8, over-limit lists, hostile strings in every field), hostile path parameters (traversal,
 * NUL, RTL override, SQL and formula text, 5,000 characters) and hostile query values. Every answer must be the
 * envelope (an error with a known code and a request id equal to `X-Request-Id`), never a 5xx, and the whole pass,
 * made by a funded account, must charge nothing: balance and ledger unchanged (spec, "Errors": every failure costs no
 * credit; bad input is an answer or a 422, both free).
 */
const KEYS = 40;
const CONCURRENCY = 8;

interface Sent {
  label: string;
  url: string;
  init: RequestInit;
}

let acct: TestAccount;
let keys: string[];
let fbKey: string;
let operations: Operation[];

beforeAll(async () => {
  acct = await createAccount({ pack: 1_000 });
  // The key's 5 a second would answer most of the pass 429: it is spread over keys of one account instead.
  keys = [acct.key, ...(await Promise.all(Array.from({ length: KEYS - 1 }, () => anotherKey(acct))))];
  fbKey = (await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`)).feedback_key;
  operations = await servedOperations();
});

let sequence = 0;
function headers(): Record<string, string> {
  const n = ++sequence;
  return {
    Authorization: `Bearer ${keys[n % keys.length]}`,
    "Content-Type": "application/json",
    Origin: "https://shop.example",
    "CF-Connecting-IP": `198.51.100.${n % 250}`,
  };
}

function urlOf(
  operation: Operation,
  pathValues: Record<string, string> = {},
  query: Record<string, string[]> | null = null,
): string {
  let path = operation.path;
  for (const p of operation.params.filter((p) => p.in === "path")) {
    const value = pathValues[p.name] ?? encodeURIComponent(paramValue(operation, p.name, p.schema, { fbKey }));
    path = path.replace(`{${p.name}}`, value);
  }
  const search = new URLSearchParams();
  const wanted =
    query ??
    Object.fromEntries(operation.params.filter((p) => p.in === "query" && p.schema && p.name).map((p) => [p.name, []]));
  for (const [name, values] of Object.entries(wanted)) for (const v of values) search.append(name, v);
  const text = search.toString();
  return `https://api.test${path}${text ? `?${text}` : ""}`;
}

/** Every hostile request of one operation. */
function requestsOf(operation: Operation): Sent[] {
  const sent: Sent[] = [];
  const sampleBody = operation.body ? JSON.stringify(sampleOf(operation.body)) : undefined;
  const label = `${operation.method} ${operation.path}`;
  if (operation.body) {
    for (const [family, body] of hostileBodies(operation.body))
      sent.push({ label: `${label} body: ${family}`, url: urlOf(operation), init: { method: operation.method, body } });
  }
  const pathParams = operation.params.filter((p) => p.in === "path");
  for (const [family, value] of pathParams.length ? HOSTILE_PARAMS : []) {
    const raw = family.includes("traversal");
    const values = Object.fromEntries(pathParams.map((p) => [p.name, raw ? value : encodeURIComponent(value)]));
    sent.push({
      label: `${label} path: ${family}`,
      url: urlOf(operation, values),
      init: { method: operation.method, ...(sampleBody ? { body: sampleBody } : {}) },
    });
  }
  const queryParams = operation.params.filter((p) => p.in === "query");
  if (queryParams.length) {
    for (const [family, text] of HOSTILE_STRINGS) {
      sent.push({
        label: `${label} query: ${family}`,
        url: urlOf(operation, {}, Object.fromEntries(queryParams.map((p) => [p.name, [text]]))),
        init: { method: operation.method },
      });
    }
    sent.push({
      label: `${label} query: repeated`,
      url: urlOf(operation, {}, Object.fromEntries(queryParams.map((p) => [p.name, ["1", "2"]]))),
      init: { method: operation.method },
    });
  }
  return sent;
}

const KNOWN_CODES = new Set(Object.keys(ERROR_STATUS));

/** What is wrong with one answer, or null. */
async function problemWith(response: Response): Promise<string | null> {
  const requestId = response.headers.get("X-Request-Id");
  if (response.status >= 500) return `${response.status}: ${(await response.text()).slice(0, 200)}`;
  if (!requestId?.startsWith("req_")) return `no X-Request-Id (${response.status})`;
  if (response.ok) {
    await response.body?.cancel();
    return null;
  }
  const text = await response.text();
  let body: { success?: unknown; error?: { code?: string; message?: unknown; request_id?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `${response.status} not JSON: ${text.slice(0, 120)}`;
  }
  const error = body.error;
  if (body.success !== false || !error || typeof error.message !== "string")
    return `${response.status} not the error envelope: ${text.slice(0, 160)}`;
  if (!KNOWN_CODES.has(error.code ?? "")) return `unknown code ${error.code}`;
  if (ERROR_STATUS[error.code as keyof typeof ERROR_STATUS] !== response.status)
    return `${error.code} with status ${response.status}`;
  if (error.request_id !== requestId) return `request_id ${error.request_id} differs from X-Request-Id ${requestId}`;
  return null;
}

/** Read from the account's object itself: after some 1,700 requests the key may be over its rate limit (429). */
async function ledgerTotal() {
  return (await accountObject(acct.accountId).ledger(1, 1)).total;
}

describe("the hostile pass over every operation of the OpenAPI document", () => {
  it("answers every hostile request with the envelope and a request id, never a 5xx, and charges nothing", {
    timeout: 120_000,
  }, async () => {
    const before = { balance: await accountObject(acct.accountId).snapshot(), ledger: await ledgerTotal() };
    const requests = operations.flatMap(requestsOf);
    const problems: string[] = [];
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const request = requests[next++]!;
          const response = await SELF.fetch(request.url, { ...request.init, headers: headers() });
          const problem = await problemWith(response);
          if (problem) problems.push(`${request.label}: ${problem}`);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `hostile pass: ${requests.length} requests over ${operations.length} operations in ${seconds.toFixed(1)} s`,
    );
    expect(problems.slice(0, 30)).toEqual([]);
    const after = { balance: await accountObject(acct.accountId).snapshot(), ledger: await ledgerTotal() };
    expect(after).toEqual(before);
    expect(operations.length).toBeGreaterThan(100);
  });
});
