import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/http/errors";
import { anotherKey, BASE, createAccount, accountObject, type TestAccount } from "../helpers";
import { hostileBodies, type Schema } from "../hostile/operations";
import { mcpHeaders } from "../mcp-client";

/**
 * The hostile pass beyond the OpenAPI document (test/http/hostile-pass.test.ts covers its operations): every tool of
 * `POST /mcp`, found in its own `tools/list` (a new tool is covered without being listed), called with each malformed
 * `arguments` of the pass (wrong types, missing and extra fields, deep nesting, huge and hostile strings, invalid JSON
 * and UTF-8), alone and in batches, and the JSON-RPC envelope itself made hostile (`null`, `[null]`, numbers, a
 * batch over its size). Every answer has an `X-Request-Id`, is never a 5xx, never a SERVER_ERROR, and the whole pass,
 * by a funded account, charges nothing.
 */
const KEYS = 40;
const CONCURRENCY = 6;
const KNOWN_CODES = new Set([...Object.keys(ERROR_STATUS), "MAX_CREDITS_EXCEEDED"]);

let acct: TestAccount;
let keys: string[];
let tools: { name: string; inputSchema: Schema }[];

beforeAll(async () => {
  acct = await createAccount({ pack: 1_000 });
  keys = [acct.key, ...(await Promise.all(Array.from({ length: KEYS - 1 }, () => anotherKey(acct))))];
  const listed = await SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: mcpHeaders(acct.key),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  tools = ((await listed.json()) as { result: { tools: typeof tools } }).result.tools;
});

const encoder = new TextEncoder();
const call = (tool: string, args: string | Uint8Array, id = 1) => {
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}",`);
  const body = typeof args === "string" ? encoder.encode(args) : args;
  return new Uint8Array([...head, ...encoder.encode('"arguments":'), ...body, ...encoder.encode("}}")]);
};

/** Every hostile request: [label, body]. */
function requests(): [string, string | Uint8Array][] {
  const sent: [string, string | Uint8Array][] = [];
  for (const tool of tools)
    for (const [family, body] of hostileBodies(tool.inputSchema))
      sent.push([`${tool.name}: ${family}`, call(tool.name, body)]);
  const quoteArgs = JSON.stringify({ tool: "verify_email", arguments: { email: "a@b.example" } });
  sent.push(
    ["null", "null"],
    ["[null]", "[null]"],
    ['[42, "x", []]', '[42, "x", []]'],
    ["empty batch", "[]"],
    [
      "batch over its size",
      JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }))),
    ],
    ["arguments a string", new TextDecoder().decode(call("get_account", '"x"'))],
    ["arguments a list", new TextDecoder().decode(call("get_account", "[1]"))],
    ["params null", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}'],
    ["unknown method", '{"jsonrpc":"2.0","id":1,"method":"no/such","params":{}}'],
    ["unknown tool", new TextDecoder().decode(call("no_such_tool", "{}"))],
    ["batch of quotes and junk", `[${new TextDecoder().decode(call("quote", quoteArgs))}, null, 7, {"jsonrpc":"2.0"}]`],
  );
  return sent;
}

/** What is wrong with one answer, or null. */
async function problemWith(response: Response): Promise<string | null> {
  const requestId = response.headers.get("X-Request-Id");
  const text = await response.text();
  if (response.status >= 500) return `${response.status}: ${text.slice(0, 200)}`;
  if (!requestId?.startsWith("req_")) return `no X-Request-Id (${response.status})`;
  if (response.status === 202) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${response.status} not JSON: ${text.slice(0, 120)}`;
  }
  for (const answer of [body].flat() as Record<string, any>[]) {
    const code: unknown = answer?.error?.code ?? answer?.result?.structuredContent?.error?.code;
    if (answer?.success === false && !KNOWN_CODES.has(String(code))) return `unknown code ${String(code)}`;
    if (code === "SERVER_ERROR" || code === -32603) return `server error: ${text.slice(0, 200)}`;
    const errorCode = answer?.result?.structuredContent?.error?.code;
    if (errorCode !== undefined && !KNOWN_CODES.has(String(errorCode))) return `unknown tool error ${errorCode}`;
  }
  return null;
}

describe("the hostile pass over the tool protocol", () => {
  it("answers every hostile message with a request id, never a 5xx or a server error, and charges nothing", {
    timeout: 120_000,
  }, async () => {
    const before = await accountObject(acct.accountId).snapshot();
    const all = requests();
    const problems: string[] = [];
    let next = 0;
    let sequence = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < all.length) {
          const [label, body] = all[next++]!;
          const n = ++sequence;
          const response = await SELF.fetch(`${BASE}/mcp`, {
            method: "POST",
            headers: { ...mcpHeaders(keys[n % keys.length]), "CF-Connecting-IP": `198.51.100.${n % 250}` },
            body,
          });
          const problem = await problemWith(response);
          if (problem) problems.push(`${label}: ${problem}`);
        }
      }),
    );
    console.log(`hostile pass (tool protocol): ${all.length} requests over ${tools.length} tools`);
    expect(problems.slice(0, 30)).toEqual([]);
    expect(tools.length).toBeGreaterThan(15);
    expect(await accountObject(acct.accountId).snapshot()).toEqual(before);
  });
});
