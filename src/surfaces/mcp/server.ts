import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { callDeferrer } from "../../http/trace-answer";
import { fieldErrors } from "../../http/validation";
import { admitPending } from "../../limits/admit";
import { quote, type Quote } from "../../lookups/quote";
import { productSubjects } from "../../products/intro";
import type { Caller } from "./call";
import { engineTools } from "./engine-tools";
import { lookupTools } from "./lookup-tools";
import { outputOf, Refusal, type ErrorBody, type Routes, type ToolSpec } from "./tool";

/**
 * The products named are the registry's (products/intro.ts), so a product registered later is among them; built once
 * per isolate, as the registry does not change within one (a batch builds a server per message).
 */
let instructionsText: string | undefined;
const instructions = () =>
  (instructionsText ??=
    `Verification tools for ${productSubjects()}, billed in ` +
    "credits from the account's balance. Each answer's meta says credits_used and credits_remaining. Call `quote` " +
    "(free) for the most a call could cost, and pass `max_credits` to any paid tool to have it refused, with " +
    "nothing charged, above that. Refusals come back as tool errors with `error.code` (INSUFFICIENT_CREDITS, " +
    "KEY_SCOPE_DENIED, RATE_LIMITED, ...).");

const QUOTE_TITLE = "Quote a call";

let cached: { routes: unknown; tools: ToolSpec[] } | undefined;

/** Every tool but `quote`, built once per isolate from the app's route table. */
export function toolSpecs(routes: Routes): ToolSpec[] {
  const table = routes.routes();
  if (cached?.routes !== table) cached = { routes: table, tools: [...lookupTools(), ...engineTools(routes)] };
  return cached.tools;
}

/** The tools' names and titles in `tools/list` order (every tool, then `quote`), for /llms.txt. */
export const toolNames = (routes: Routes) => [
  ...toolSpecs(routes).map(({ name, title }) => ({ name, title })),
  { name: "quote", title: QUOTE_TITLE },
];

const text = (value: unknown) => [{ type: "text" as const, text: JSON.stringify(value) }];

const succeeded = (data: unknown, meta: Record<string, unknown>): CallToolResult => ({
  content: text({ data, meta }),
  structuredContent: { data, meta },
});

const failed = (error: ErrorBody): CallToolResult => ({
  isError: true,
  content: text({ error }),
  structuredContent: { error },
});

/** The most the call could cost, as the lookup service quotes it; a refusal (the key's scope) as a tool error. */
async function priced(caller: Caller, spec: ToolSpec, args: Record<string, unknown>): Promise<Quote> {
  const request = await spec.cost!(args, caller);
  const { c } = caller;
  const outcome = await quote({ env: c.env, principal: c.var.principal! }, request);
  if (!outcome.ok) {
    const { code, message } = outcome.refusal;
    throw new Refusal({ code, message, request_id: c.var.requestId });
  }
  return outcome.quote;
}

/**
 * Counts the /mcp request's rate limit now if the call did not (a call refused before the lookup service's first call
 * to the account's object, or one that never calls it), so a call over the limit is a tool error like any refusal.
 */
async function admitted(caller: Caller, result: CallToolResult): Promise<CallToolResult> {
  const limited = await admitPending(caller.c.env, caller.c.var.admission);
  if (!limited) return result;
  return failed({
    code: limited.code,
    message: limited.message,
    request_id: caller.c.var.requestId,
    retry_after_seconds: limited.retryAfterSeconds,
  });
}

/** A tool's work, given the call's own caller (its own `defer`). */
type ToolWork = (args: Record<string, unknown>, call: Caller) => Promise<CallToolResult>;

/**
 * Runs a tool: its arguments validated (VALIDATION_FAILED with field errors, as HTTP's 422), `max_credits` checked
 * (refused before anything is held), then the work; every refusal a tool error with the API's code.
 */
async function run(caller: Caller, spec: ToolSpec, raw: Record<string, unknown>, work: ToolWork) {
  const requestId = caller.c.var.requestId;
  // The work this call defers is its own: a failure of it fails that work alone, whatever other calls deferred.
  const deferred = callDeferrer(caller.c);
  const call: Caller = { ...caller, defer: deferred.defer };
  try {
    const parsed = spec.input.safeParse(raw);
    if (!parsed.success) {
      return failed({
        code: "VALIDATION_FAILED",
        message: `The arguments are not valid for ${spec.name}.`,
        request_id: requestId,
        errors: fieldErrors(parsed.error, "arguments"),
      });
    }
    if (spec.cost && typeof raw.max_credits === "number") {
      const quote = await priced(caller, spec, raw);
      if (quote.max_credits > raw.max_credits) {
        const message =
          `This call could cost up to ${quote.max_credits} credits, over max_credits ` +
          `${raw.max_credits}; nothing was held or charged.`;
        return failed({ code: "MAX_CREDITS_EXCEEDED", message, request_id: requestId, quote });
      }
    }
    // Each tool reads its arguments again with its route's own schemas (refinements, transforms): they go as given.
    return await admitted(caller, await work(raw, call));
  } catch (err) {
    // The call answers an error: what it deferred releases its hold, or refunds what it settled, instead of charging.
    deferred.fail();
    if (err instanceof Refusal) return admitted(caller, failed(err.body));
    console.error(
      JSON.stringify({
        request_id: requestId,
        event: "unhandled_error",
        tool: spec.name,
        error: err instanceof Error ? err.stack : String(err),
      }),
    );
    return failed({
      code: "SERVER_ERROR",
      message: "The call failed on our side; it is logged against request_id.",
      request_id: requestId,
    });
  }
}

/**
 * The SDK is handed an open input schema so that invalid arguments reach `run`, which answers them with the API's
 * VALIDATION_FAILED and field errors; clients see the real schemas in `tools/list` (toolListing).
 */
function register(server: McpServer, caller: Caller, spec: ToolSpec, work: ToolWork) {
  const config = {
    title: spec.title,
    description: spec.description,
    inputSchema: z.looseObject({}),
    outputSchema: outputOf(spec),
    annotations: annotations(spec),
  };
  server.registerTool(spec.name, config, (args: Record<string, unknown>) => run(caller, spec, args, work));
}

const annotations = (spec: ToolSpec) => ({
  title: spec.title,
  readOnlyHint: spec.readOnly,
  openWorldHint: spec.openWorld,
  ...(spec.readOnly ? {} : { destructiveHint: false }),
});

/** `quote`: what a paid tool call would cost at most, from the price rules and the account's repeat window. Free. */
function registerQuote(server: McpServer, caller: Caller, tools: ToolSpec[]): ToolSpec {
  const paid = tools.filter((t) => t.cost);
  const spec: ToolSpec = {
    name: "quote",
    title: QUOTE_TITLE,
    description:
      "The most a paid tool call would cost, without running it: its values deduplicated, test values and malformed " +
      "ones free, values this account looked up in the last 7 days free (unless refresh/max_age asks for fresh " +
      "answers), every other value at most one unit (IP: five per credit). Free, nothing held. Pass the same " +
      "arguments you would pass the tool.",
    readOnly: true,
    openWorld: false,
    input: z.object({
      tool: z.enum(paid.map((t) => t.name) as [string, ...string[]]),
      arguments: z.record(z.string(), z.unknown()),
    }),
    data: z.object({
      tool: z.string(),
      values: z.int(),
      distinct: z.int(),
      free: z.int(),
      chargeable: z.int(),
      max_credits: z.int(),
    }),
    meta: z.object({ credits_used: z.int() }),
  };
  register(server, caller, spec, async (args) => {
    const target = paid.find((t) => t.name === args.tool)!;
    const parsed = target.input.safeParse(args.arguments);
    if (!parsed.success) {
      return failed({
        code: "VALIDATION_FAILED",
        message: `The arguments are not valid for ${target.name}.`,
        request_id: caller.c.var.requestId,
        errors: fieldErrors(parsed.error, "arguments"),
      });
    }
    const quote = await priced(caller, target, args.arguments as Record<string, unknown>);
    return succeeded({ tool: target.name, ...quote }, { credits_used: 0, request_id: caller.c.var.requestId });
  });
  return spec;
}

/**
 * A server for one request (stateless): every tool; the lookup tools call the lookup service, the others their API
 * route (./call.ts).
 */
export function buildServer(caller: Caller, routes: Routes): McpServer {
  const server = new McpServer(
    { name: "verification-api", version: "1.0.0" },
    { instructions: instructions(), jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const tools = toolSpecs(routes);
  for (const spec of tools) {
    register(server, caller, spec, async (args, call) => {
      const answer = await spec.invoke!(args, call);
      return answer.ok ? succeeded(answer.data, answer.meta) : failed(answer.error);
    });
  }
  const quote = registerQuote(server, caller, tools);
  const listing = toolListing([...tools, quote]);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  return server;
}

let listed: { tools: ToolSpec[]; listing: Tool[] } | undefined;

/**
 * `tools/list`, converted once per isolate. The SDK's own listing converts without `unrepresentable: "any"`, and a
 * few schemas that validate requests end in a transform (entity items, address rows): their JSON Schema side is the
 * input's, as the OpenAPI document shows it, and the output side of such a field is left open.
 */
function toolListing(tools: ToolSpec[]): Tool[] {
  if (listed && listed.tools[0] === tools[0] && listed.tools.length === tools.length) return listed.listing;
  const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    return rest as Tool["inputSchema"];
  };
  const listing = tools.map((spec) => ({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: jsonSchema(spec.input, "input"),
    outputSchema: jsonSchema(outputOf(spec), "output"),
    annotations: annotations(spec),
  }));
  listed = { tools, listing };
  return listing;
}
