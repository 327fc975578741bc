import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

/** A tool answer's structured content: `data` and `meta` on success, `error` when refused. */
export interface ToolAnswer<T = Record<string, unknown>> {
  isError: boolean;
  data: T;
  meta: Record<string, unknown>;
  error: {
    code: string;
    message: string;
    request_id: string;
    errors?: Record<string, string[]>;
    quote?: Record<string, number>;
  };
}

/**
 * The SDK's own client over Streamable HTTP to `base`/mcp with a secret key; `fetch` is the Worker's own inside
 * workerd, the network's in the e2e project. Output is validated by the client against each tool's schema.
 */
export async function connect(base: string, key: string, fetchImpl: typeof fetch = fetch, { paceMs = 0 } = {}) {
  const client = new Client(
    { name: "test-agent", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", base), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: (url, init) => fetchImpl(url, init),
  });
  await client.connect(transport);
  // The client validates structured content only for tools it has listed.
  await client.listTools();
  const tool = async <T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<ToolAnswer<T>> => {
    // A key may make 5 requests a second; a test making many calls in a row spaces them.
    if (paceMs) await new Promise((resolve) => setTimeout(resolve, paceMs));
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const content = (result.structuredContent ?? {}) as Partial<ToolAnswer<T>>;
    return {
      isError: result.isError === true,
      data: content.data as T,
      meta: content.meta ?? {},
      error: content.error!,
    };
  };
  return { client, tool, close: () => client.close() };
}

/** One JSON-RPC message to `/mcp` as a raw HTTP request, for refusals that come before any session. */
export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

export const mcpHeaders = (key?: string): Record<string, string> => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  ...(key ? { Authorization: `Bearer ${key}` } : {}),
});
