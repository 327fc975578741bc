import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { browserCors, publishableFields, publishableKey } from "../auth/publishable-key";
import { payerOf } from "../engines/credits/payer";
import type { LookupRequest, LookupRoute } from "../engines/lookup-shape";
import type { Product } from "../engines/product";
import { browserOk, browserSchema } from "../http/browser-answer";
import { ok } from "../http/envelope";
import { ApiError, ERROR_STATUS, validationFailed, type ErrorCode } from "../http/errors";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import { assertWebhookUrl } from "../http/webhook-url";
import { registeredProducts } from "../products/registry";
import type { AppEnv } from "../types";
import { batchMetaOf, batchResults, dataSchema, metaSchema, singleMeta } from "./lookup-meta";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

type Validated = (target: "json" | "param" | "query") => unknown;

function requestOf(c: Context<AppEnv>, route: LookupRoute): LookupRequest {
  const valid = (c.req.valid as unknown as Validated).bind(c.req);
  return {
    json: route.request.json ? valid("json") : undefined,
    param: route.request.param ? valid("param") : undefined,
    query: route.request.query ? valid("query") : undefined,
    clientAddress: c.req.header("CF-Connecting-IP") ?? "",
  };
}

const isErrorCode = (code: string): code is ErrorCode => code in ERROR_STATUS;

/** Runs one declared route: its inputs through the lookup service, answered in the envelope its kind documents. */
async function answer(c: Context<AppEnv>, owner: Product, route: LookupRoute) {
  const request = requestOf(c, route);
  const json = (request.json ?? {}) as Record<string, unknown>;
  for (const field of route.urlFields ?? [])
    if (typeof json[field] === "string") assertWebhookUrl(c.env, field, json[field]);
  const inputs = route.inputs(request);
  if (!Array.isArray(inputs)) throw validationFailed(inputs.invalid);
  const product = route.product ?? owner;
  const run = await paidWalk(c, product, inputs, {
    honorSuppressions: route.kind === "batch",
    ...route.options?.(request),
  });
  if (route.kind === "batch") return ok(c, { results: batchResults(route, run) }, batchMetaOf(route, run));
  const data = run.items[0]!.data;
  if (route.kind === "browser") return browserOk(c, data as object);
  const read = route.answer ? route.answer(data) : { data };
  if ("error" in read)
    throw new ApiError(isErrorCode(read.error.code) ? read.error.code : "SERVER_ERROR", read.error.message);
  const after = route.after
    ? await route.after({ env: c.env, requestId: c.var.requestId, payer: payerOf(c.var.principal) }, request.json, data)
    : {};
  return ok(c, read.data, { ...singleMeta(route, run), ...after });
}

/** The middleware chain of a declared route: its documentation, key check, validation, then the answer. */
function handlers(owner: Product, tag: string, route: LookupRoute): MiddlewareHandler<AppEnv>[] {
  const browser = route.kind === "browser";
  const doc = describe({
    tag,
    summary: route.summary,
    description: route.description,
    response: browser ? browserSchema(route.response as z.ZodObject) : dataSchema(route),
    meta: metaSchema(route),
    errors: [...LOOKUP_ERRORS, ...(route.errors ?? []).filter(isErrorCode)],
  });
  const { json, param, query } = route.request;
  const validators = [
    ...(param ? [pathParams(param)] : []),
    ...(query ? [queryParams(query)] : []),
    ...(json ? [jsonBody(browser ? z.object({ ...publishableFields, ...(json as z.ZodObject).shape }) : json)] : []),
  ] as unknown as MiddlewareHandler<AppEnv>[];
  const key = browser
    ? []
    : [lookupKey({ scope: (route.product ?? owner).scope, ...(route.sandbox ? { sandbox: true } : {}) })];
  // A browser lookup reads its key from the validated body, so the body is checked first.
  const checks = browser ? [...validators, publishableKey()] : [...key, ...validators];
  return [doc, ...checks, (c) => answer(c, owner, route)];
}

function mount(routes: Hono<AppEnv>, owner: Product, tag: string, route: LookupRoute) {
  if (route.kind === "browser") routes.use(route.path, browserCors());
  routes.on(route.method.toUpperCase(), route.path, ...(handlers(owner, tag, route) as [MiddlewareHandler<AppEnv>]));
}

/**
 * Every registered product's lookup routes, from what each declares (`lookups`): single, batch, browser and its own
 * reads. `last` selects the routes to mount after every other route (a path parameter such as `/ip/{ip}`).
 */
export function productLookupRoutes(last = false) {
  const routes = new Hono<AppEnv>();
  for (const product of registeredProducts()) {
    for (const route of product.lookups?.routes ?? [])
      if (Boolean(route.last) === last) mount(routes, product, product.lookups!.tag, route);
  }
  return routes;
}
