/** The most messages one JSON-RPC batch to /mcp may hold (docs/agents.md, "Batches"); the SDK's own cap is 100. */
export const MCP_BATCH_MAX = 20;

type RpcId = string | number | null;
type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC error answered by this surface itself; `data.request_id` is the id the request is logged under. */
export function rpcError(id: RpcId, code: number, message: string, data: Fields & { request_id: string }) {
  return { jsonrpc: "2.0" as const, id, error: { code, message, data } };
}

export type RpcError = ReturnType<typeof rpcError>;

const idOf = (message: Fields): RpcId =>
  typeof message.id === "string" || typeof message.id === "number" ? message.id : null;

/** A message that asks for an answer (and so counts as a request); notifications and client replies do not. */
export const asksForAnswer = (message: unknown) =>
  !isObject(message) ||
  (typeof message.method === "string" && !message.method.startsWith("notifications/")) ||
  !("result" in message || "error" in message || "method" in message);

/**
 * Why a message cannot be handed to the protocol, as the JSON-RPC error it is answered with; null when it can. The
 * SDK answers a message that is not an object with a 500 and wrongly typed `arguments` with a tool result, so both are
 * answered here first: -32600 for a message that is not a JSON-RPC 2.0 object, -32602 for `tools/call` params.
 */
export function invalidMessage(message: unknown, requestId: string): RpcError | null {
  const data = { request_id: requestId };
  if (!isObject(message) || message.jsonrpc !== "2.0")
    return rpcError(null, -32600, "Invalid Request: each message is a JSON-RPC 2.0 object.", data);
  if (message.method !== "tools/call") return null;
  const params = message.params;
  if (!isObject(params) || typeof params.name !== "string")
    return rpcError(idOf(message), -32602, "Invalid params: tools/call takes {name, arguments}.", data);
  if (params.arguments !== undefined && !isObject(params.arguments))
    return rpcError(idOf(message), -32602, "Invalid params: `arguments` must be an object.", data);
  return null;
}

/** The answer to a message not run because its batch met the key's rate limit. */
export function rateLimitedAnswer(
  message: unknown,
  refusal: { message: string; retryAfterSeconds: number },
  requestId: string,
) {
  const id = isObject(message) ? idOf(message) : null;
  return rpcError(id, -32000, refusal.message, {
    code: "RATE_LIMITED",
    request_id: requestId,
    retry_after_seconds: refusal.retryAfterSeconds,
  });
}

/** A tool call refused by the key's rate limit, as that refusal (the batch's later messages then wait). */
export function rateRefusalOf(answer: unknown): { message: string; retryAfterSeconds: number } | null {
  if (!isObject(answer) || !isObject(answer.result)) return null;
  const content = answer.result.structuredContent;
  if (!isObject(content) || !isObject(content.error) || content.error.code !== "RATE_LIMITED") return null;
  const { message, retry_after_seconds: retry } = content.error;
  return { message: String(message), retryAfterSeconds: typeof retry === "number" ? retry : 1 };
}
