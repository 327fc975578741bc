import { z } from "zod";
import type { LookupRequest, LookupRoute, LookupTool } from "../../engines/lookup-declarations";
import type { Product } from "../../engines/product";
import { toolNameOf } from "../../http/operation-ids";
import { fieldErrors } from "../../http/validation";
import { registeredProducts } from "../../products/registry";
import { dataSchema, metaSchema } from "../../lookups/route-schemas";
import { runDeclared } from "../../lookups/service";
import { answerToolCall, lookupCallerOf, type Caller, type ToolAnswer } from "./call";
import { Refusal, walkOptions, type ToolSpec } from "./tool";

const REPEAT =
  "A value this account looked up in the last 7 days answers free from the repeat window (meta.cache_hit).";
const TEST = "Test values (docs: test values) always answer the same way and cost nothing.";
// An agent reads the answer, not the docs: it must not take a synthetic sample's row for a register's word.
const SOURCES =
  "data.sources names each dataset behind the answer with its coverage: `full`, `partial` (part of the file: a " +
  "value it lacks is not known either way), `sample` (synthetic rows or an offline stand-in; the answer's reason is " +
  "then `sample_data` where a row decided) or `none` (a live check or partner asked without an answer: nothing " +
  "came from it); `decided: false` marks one consulted that decided nothing.";

export const maxCredits = z
  .int()
  .min(0)
  .optional()
  .describe(
    "Refuse (MAX_CREDITS_EXCEEDED, nothing held or charged) if the call could cost more than this many credits",
  );

const shapeOf = (schema: z.ZodType | undefined) => (schema instanceof z.ZodObject ? schema.shape : {});

/** A declared route with its tool, and the product that declares it. */
interface ToolRoute {
  owner: Product;
  route: LookupRoute;
  tool: LookupTool;
}

/** Every declared route offered as a tool, in registry order. */
const toolRoutes = (): ToolRoute[] =>
  registeredProducts().flatMap((owner) =>
    (owner.lookups?.routes ?? []).flatMap((route) => (route.tool ? [{ owner, route, tool: route.tool }] : [])),
  );

const paramNames = (route: LookupRoute) => [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/**
 * The route's request from flat tool arguments, as HTTP would carry them: `:name` path parameters as text, the rest
 * the body (POST) or the query (GET, as text); each part checked by the route's own schema.
 */
function requestOf(
  route: LookupRoute,
  args: Record<string, unknown>,
): { request: LookupRequest } | { errors: Record<string, string[]> } {
  const rest: Record<string, unknown> = { ...args };
  delete rest.max_credits;
  const param: Record<string, string> = {};
  for (const name of paramNames(route)) {
    param[name] = String(rest[name]).toWellFormed();
    delete rest[name];
  }
  const query =
    route.method === "get"
      ? Object.fromEntries(Object.entries(rest).flatMap(([k, v]) => (v == null ? [] : [[k, String(v)]])))
      : {};
  const parts = { param, query, json: route.method === "post" ? rest : undefined };
  const request: LookupRequest = { json: undefined, param: undefined, query: undefined, clientAddress: "" };
  for (const target of ["param", "query", "json"] as const) {
    const schema = route.request[target];
    if (!schema) continue;
    const parsed = schema.safeParse(parts[target]);
    if (!parsed.success) return { errors: fieldErrors(parsed.error, target === "json" ? "body" : target) };
    request[target] = parsed.data;
  }
  return { request };
}

const invalidArguments = (errors: Record<string, string[]>, requestId: string) =>
  new Refusal({ code: "VALIDATION_FAILED", message: "The request has invalid fields.", request_id: requestId, errors });

/** Calls the lookup service as the route's declaration says; the call is recorded as a request of its own. */
async function invoke(entry: ToolRoute, args: Record<string, unknown>, caller: Caller): Promise<ToolAnswer> {
  const lookupCaller = lookupCallerOf(caller);
  const { requestId } = lookupCaller;
  const read = requestOf(entry.route, args);
  if ("errors" in read) throw invalidArguments(read.errors, requestId);
  const { request } = read;
  const outcome = await runDeclared({ caller: lookupCaller, owner: entry.owner, route: entry.route, request });
  const path = entry.route.path.replace(/:(\w+)/g, (_m, name: string) =>
    encodeURIComponent(String((request.param as Record<string, string>)[name])),
  );
  return answerToolCall(caller, { requestId, method: entry.route.method, path, outcome });
}

/** What the call would look up, for `quote` and `max_credits`: the declaration's own inputs and options. */
function cost(entry: ToolRoute, args: Record<string, unknown>, caller: Caller) {
  const read = requestOf(entry.route, args);
  if ("errors" in read) throw invalidArguments(read.errors, caller.c.var.requestId);
  const { request } = read;
  const inputs = entry.route.inputs(request);
  if (!Array.isArray(inputs)) throw invalidArguments(inputs.invalid, caller.c.var.requestId);
  const base = walkOptions({}, entry.route.kind === "batch");
  return Promise.resolve({
    product: entry.route.product ?? entry.owner,
    inputs,
    options: { ...base, ...entry.route.options?.(request) },
  });
}

/**
 * The lookup tools: one per declared route that names a tool (src/products/<name>/declarations.ts), its arguments that
 * route's path parameters, query and body fields, its answer the route's `data` and `meta`.
 */
export function lookupTools(): ToolSpec[] {
  return toolRoutes().map((entry) => {
    const { route, tool } = entry;
    const notes = [REPEAT, ...(tool.testValues ? [TEST] : []), SOURCES].join(" ");
    return {
      name: toolNameOf(route.operationId),
      title: tool.title,
      description: `${tool.description} ${notes}`,
      // Lookups spend credits: not read-only, so a host that auto-approves read-only tools still asks first.
      readOnly: false,
      openWorld: tool.openWorld,
      input: z
        .object({
          ...shapeOf(route.request.param),
          ...shapeOf(route.request.query),
          ...shapeOf(route.request.json),
        })
        .extend({ max_credits: maxCredits }),
      data: dataSchema(route),
      meta: metaSchema(route) ?? z.object({}),
      invoke: (args, caller) => invoke(entry, args, caller),
      cost: (args, caller) => cost(entry, args, caller),
    };
  });
}
