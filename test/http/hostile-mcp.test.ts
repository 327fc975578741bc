import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MCP_BATCH_MAX } from "../../src/surfaces/mcp/messages";
import { freezeClock } from "../frozen-clock";
import { anotherKey, BASE, createAccount, requestRecord } from "../helpers";
import { mcpHeaders } from "../mcp-client";

/**
 * What the second attack on /mcp found (docs/agents.md, "Batches" and "Refusals"): a JSON-RPC batch counted as one
 * request (800 quotes in 1.8 s under a 5-a-second key), a batch of tools/list as an amplifier, `null` bodies answered
 * 500, wrong-typed `arguments` not answered -32602, and /mcp requests missing from the request log.
 */
interface RpcAnswer {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: { tools?: unknown[]; isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string; data?: { code?: string; request_id?: string } };
}

const post = (key: string, body: string, ip = "192.0.2.201") =>
  SELF.fetch(`${BASE}/mcp`, { method: "POST", headers: { ...mcpHeaders(key), "CF-Connecting-IP": ip }, body });

const message = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const quoteArguments = { tool: "verify_email", arguments: { email: "a@b.example" } };
const quote = (id: number) => message(id, "tools/call", { name: "quote", arguments: quoteArguments });

const limited = (answer: RpcAnswer) =>
  answer.error?.data?.code === "RATE_LIMITED" ||
  (answer.result?.structuredContent?.error as { code?: string } | undefined)?.code === "RATE_LIMITED";

describe("POST /mcp: batches", { timeout: 30_000 }, () => {
  it("counts each message of a batch as a request: a batch of quotes meets the key's 5 a second", async () => {
    const acct = await createAccount();
    const batch = Array.from({ length: MCP_BATCH_MAX }, (_, i) => quote(i + 1));
    const clock = freezeClock();
    const response = await post(acct.key, JSON.stringify(batch)).finally(clock.thaw);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual(batch.map((m) => m.id));
    const refused = answers.filter(limited);
    // The clock stands still, so exactly the burst is admitted, whatever the machine's speed.
    expect(answers.length - refused.length).toBe(5);
    expect(refused.length).toBe(MCP_BATCH_MAX - 5);
  });

  it(`refuses a batch over ${MCP_BATCH_MAX} messages whole, with -32600 and nothing run`, async () => {
    const acct = await createAccount();
    const response = await post(acct.key, JSON.stringify(Array.from({ length: 800 }, (_, i) => quote(i + 1))));
    expect(response.status).toBe(400);
    const answer = (await response.json()) as RpcAnswer;
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answer.error!.message).toContain(String(MCP_BATCH_MAX));
  });

  it("is no amplifier: a batch of tools/list answers at most the key's burst of listings", async () => {
    const acct = await createAccount();
    const single = await post(await anotherKey(acct), JSON.stringify(message(1, "tools/list")));
    const listing = (await single.text()).length;
    const clock = freezeClock();
    const response = await post(
      acct.key,
      JSON.stringify(Array.from({ length: MCP_BATCH_MAX }, (_, i) => message(i + 1, "tools/list"))),
    ).finally(clock.thaw);
    const text = await response.text();
    const answers = JSON.parse(text) as RpcAnswer[];
    expect(answers.filter((a) => a.result?.tools).length).toBe(5);
    expect(text.length).toBeLessThan(listing * 6);
  });
});

describe("POST /mcp: malformed messages", () => {
  it("answers null with a JSON-RPC invalid request (400), not 500", async () => {
    const acct = await createAccount();
    const response = await post(acct.key, "null");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("answers [null], [] and [42] with invalid request errors, not 500", async () => {
    const acct = await createAccount();
    const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
    const one = await post(keys[0]!, "[null]");
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject([{ jsonrpc: "2.0", id: null, error: { code: -32600 } }]);
    const empty = await post(keys[1]!, "[]");
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ id: null, error: { code: -32600 } });
    const number = await post(keys[2]!, "[42]");
    expect(await number.json()).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it("answers tools/call with arguments of the wrong type with -32602 invalid params", async () => {
    const acct = await createAccount();
    const keys = [acct.key, await anotherKey(acct), await anotherKey(acct)];
    for (const [i, args] of (["a string", [1, 2], 7] as unknown[]).entries()) {
      const response = await post(
        keys[i]!,
        JSON.stringify(message(1, "tools/call", { name: "get_account", arguments: args })),
      );
      expect([JSON.stringify(args), response.status]).toEqual([JSON.stringify(args), 200]);
      expect(await response.json()).toMatchObject({ id: 1, error: { code: -32602 } });
    }
  });
});

describe("POST /mcp: the request log", { timeout: 30_000 }, () => {
  it("records every /mcp request under the request id its errors carry", async () => {
    const acct = await createAccount();
    const response = await post(acct.key, "null");
    const requestId = response.headers.get("X-Request-Id")!;
    const answer = (await response.json()) as RpcAnswer;
    expect(answer.error?.data?.request_id).toBe(requestId);
    const tool = await post(
      await anotherKey(acct),
      JSON.stringify(message(2, "tools/call", { name: "verify_emails", arguments: { emails: "not a list" } })),
    );
    const toolId = tool.headers.get("X-Request-Id")!;
    const toolAnswer = (await tool.json()) as RpcAnswer;
    const toolError = toolAnswer.result?.structuredContent?.error as { request_id?: string } | undefined;
    expect(toolError?.request_id).toBe(toolId);
    for (const id of [requestId, toolId]) {
      const { status, body } = await requestRecord(await anotherKey(acct), id);
      expect([id, status, body.data.endpoint]).toEqual([id, 200, "POST /mcp"]);
    }
  });
});
