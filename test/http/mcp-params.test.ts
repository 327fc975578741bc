import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { anotherKey, BASE, createAccount } from "../helpers";
import { mcpHeaders } from "../mcp-client";

/**
 * Issue 48, item 6: every method the tool protocol answers takes mistyped params as JSON-RPC -32602 (Invalid params)
 * with a short message, as `tools/call` does; the SDK alone answered `initialize` -32603 with its schema's report.
 */
interface RpcAnswer {
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { request_id?: string } };
}

const post = (key: string, body: unknown) =>
  SELF.fetch(`${BASE}/mcp`, {
    method: "POST",
    headers: { ...mcpHeaders(key), "CF-Connecting-IP": "192.0.2.202" },
    body: JSON.stringify(body),
  });

const message = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 7, method, params });

const goodInitialize = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "test", version: "1.0.0" },
};

/** Each method with params of the wrong type; each case names what is wrong. */
const badParams: [string, unknown][] = [
  ["initialize", { protocolVersion: 2025, capabilities: {}, clientInfo: { name: "test", version: "1.0.0" } }],
  ["initialize", { protocolVersion: "2025-06-18", capabilities: "all", clientInfo: { name: "t", version: "1" } }],
  ["initialize", { protocolVersion: "2025-06-18", capabilities: {} }],
  ["initialize", "not an object"],
  ["ping", { _meta: "not an object" }],
  ["ping", [1, 2]],
  ["tools/list", { cursor: 42 }],
  ["tools/list", 7],
  ["tools/call", { name: 42 }],
  ["tools/call", { name: "get_account", arguments: "a string" }],
];

describe("POST /mcp: params of the wrong type", () => {
  it("answers each method's bad params with -32602 and a short message, never -32603", async () => {
    const acct = await createAccount();
    for (const [method, params] of badParams) {
      // A key makes 5 requests a second: each case has a key of its own.
      const response = await post(await anotherKey(acct), message(method, params));
      const answer = (await response.json()) as RpcAnswer;
      const label = `${method} ${JSON.stringify(params)}`;
      expect([label, response.status, answer.id, answer.error?.code]).toEqual([label, 200, 7, -32602]);
      expect(answer.error!.message).toMatch(/^Invalid params/);
      expect(answer.error!.message.length).toBeLessThan(160);
      expect(answer.error!.message).not.toContain("\n");
      expect(answer.error!.data?.request_id).toBe(response.headers.get("X-Request-Id"));
    }
  });

  it("still answers the same methods with good params", async () => {
    const acct = await createAccount();
    const good: [string, unknown][] = [
      ["initialize", goodInitialize],
      ["ping", {}],
      ["tools/list", {}],
    ];
    for (const [method, params] of good) {
      const answer = (await (await post(await anotherKey(acct), message(method, params))).json()) as RpcAnswer;
      expect([method, answer.error]).toEqual([method, undefined]);
      expect(answer.result).toBeDefined();
    }
  });

  it("answers a method it does not serve -32601 (method not found) whatever its params", async () => {
    const acct = await createAccount();
    const response = await post(acct.key, message("resources/list", { cursor: 42 }));
    expect(((await response.json()) as RpcAnswer).error?.code).toBe(-32601);
  });
});
