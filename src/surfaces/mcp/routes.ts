import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { admitRequest } from "../../auth/admit";
import { secretKey } from "../../auth/secret-key";
import { BODY_BYTES, readBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import type { AppEnv } from "../../types";
import { buildServer } from "./server";

type Message = { method?: unknown; params?: { name?: unknown } };

/**
 * A tool call that goes to the API counts the key's rate limit there, as the HTTP request it is; counting it here as
 * well would halve the key's rate. Everything else (initialize, tools/list, `quote`) counts here.
 */
const forwardsOnly = (messages: Message[]) =>
  messages.length > 0 && messages.every((m) => m.method === "tools/call" && m.params?.name !== "quote");

const isRequest = (m: Message) => typeof m.method === "string" && !m.method.startsWith("notifications/");

/**
 * `POST /mcp`: the tool protocol over Streamable HTTP, stateless (a server per request, JSON answers, no session id).
 * The key is checked before the protocol sees the request, in the API's order (docs/agents.md, "Refusals"): a key
 * that is missing, unknown, unverified, of a departed holder or from a source off its allowlist gets the HTTP status
 * and error envelope of the API. Scopes, limits, caps and credits are the API call's, answered as tool errors.
 */
export function mcpRoutes(app: () => Hono<AppEnv>) {
  return new Hono<AppEnv>().post("/mcp", secretKey({ admitOnFirstCall: true }), async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(c, BODY_BYTES.bulk));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      return c.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON." }, id: null }, 400);
    }
    const messages = (Array.isArray(body) ? body : [body]) as Message[];
    if (forwardsOnly(messages)) c.set("admission", undefined);
    else if (messages.some(isRequest)) await admitRequest(c);
    else c.set("admission", undefined);
    const server = buildServer({ c, app }, { routes: () => app().routes });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body });
  });
}
