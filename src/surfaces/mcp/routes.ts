import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type Context, Hono } from "hono";
import { admitPending, expectAdmission } from "../../limits/admit";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { BODY_BYTES, readBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import { limitHit } from "../../limits/admission";
import type { AppEnv } from "../../types";
import { asksForAnswer, invalidMessage, MCP_BATCH_MAX, rateLimitedAnswer, rateRefusalOf, rpcError } from "./messages";
import { buildServer } from "./server";

type Ctx = Context<AppEnv>;
type App = () => Hono<AppEnv>;

/** One message through a server of its own (stateless: a transport answers one request). */
async function answer(c: Ctx, app: App, message: unknown): Promise<Response> {
  const server = buildServer({ c }, { routes: () => app().routes });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: message });
}

/**
 * A batch: at most MCP_BATCH_MAX messages, each counted against the key's rate limit as a request of its own (a tool
 * call by the lookup service or its engine act, anything else once answered, notifications not at all), run one
 * after another. Once one is over the limit, the messages after it are answered RATE_LIMITED without running, so a
 * batch does at most the key's burst of work.
 */
async function batch(c: Ctx, app: App, messages: unknown[]): Promise<Response> {
  const requestId = c.var.requestId;
  if (messages.length === 0 || messages.length > MCP_BATCH_MAX) {
    const text = `Invalid Request: a batch holds 1 to ${MCP_BATCH_MAX} messages.`;
    return c.json(rpcError(null, -32600, text, { request_id: requestId }), 400);
  }
  const principal = secretPrincipal(c);
  const answers: unknown[] = [];
  let refusal: { message: string; retryAfterSeconds: number } | null = null;
  for (const message of messages) {
    const counted = asksForAnswer(message);
    if (refusal) {
      if (counted) answers.push(rateLimitedAnswer(message, refusal, requestId));
      continue;
    }
    if (counted)
      expectAdmission(c, { id: principal.keyId, accountId: principal.accountId }, [limitHit("key", principal.keyId)]);
    else c.set("admission", undefined);
    const invalid = invalidMessage(message, requestId);
    const response = invalid ? null : await answer(c, app, message);
    const body: unknown = invalid ?? (response?.status === 202 ? undefined : await response?.json());
    const limited = await admitPending(c.env, c.var.admission);
    if (limited) {
      refusal = limited;
      answers.push(rateLimitedAnswer(message, limited, requestId));
      continue;
    }
    refusal = rateRefusalOf(body);
    if (body !== undefined) answers.push(body);
  }
  c.set("admission", undefined);
  return answers.length ? c.json(answers) : c.body(null, 202);
}

/**
 * `POST /mcp`: the tool protocol over Streamable HTTP, stateless (a server per message, JSON answers, no session id).
 * The key is checked before the protocol sees the request, in the API's order (docs/agents.md, "Refusals"): a key
 * that is missing, unknown, unverified, of a departed holder or from a source off its allowlist gets the HTTP status
 * and error envelope of the API. Scopes, limits, caps and credits are the API call's, answered as tool errors.
 */
export function mcpRoutes(app: App) {
  return new Hono<AppEnv>().post("/mcp", secretKey({ admitOnFirstCall: true }), async (c) => {
    const requestId = c.var.requestId;
    let body: unknown;
    try {
      body = JSON.parse(await readBody(c, BODY_BYTES.bulk));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      return c.json(rpcError(null, -32700, "Parse error: the body is not JSON.", { request_id: requestId }), 400);
    }
    if (Array.isArray(body)) return batch(c, app, body);
    const invalid = invalidMessage(body, requestId);
    if (invalid) return c.json(invalid, invalid.error.code === -32600 ? 400 : 200);
    // Rate limit: a lookup tool's first call to the account's object counts this request (the lookup service), an
    // engine tool counts it before its act or by the act's first call (engine-call.ts), and a tool call that made
    // neither is counted once it answered (server.ts). Anything else that asks for an answer (initialize, tools/list)
    // is counted once answered, as secretKey() counts a request that never called the account's object. Notifications
    // are not counted.
    if (!asksForAnswer(body)) c.set("admission", undefined);
    return answer(c, app, body);
  });
}
