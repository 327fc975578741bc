import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { secretKey } from "../../auth/secret-key";
import { BODY_BYTES, readBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import type { AppEnv } from "../../types";
import { buildServer } from "./server";

type Message = { method?: unknown };

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
      return c.json(
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON." }, id: null },
        400,
      );
    }
    // Rate limit: a tool call that reaches the API is counted by that API request (call.ts); anything else that
    // asks for an answer (initialize, tools/list, quote, a call refused before the API) is counted by this one once
    // answered, as secretKey() counts a request that never called the account's object. Notifications are not counted.
    if (!(Array.isArray(body) ? body : [body]).some((m: Message) => isRequest(m))) c.set("admission", undefined);
    const server = buildServer({ c, app }, { routes: () => app().routes });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body });
  });
}
