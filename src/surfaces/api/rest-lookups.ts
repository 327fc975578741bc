import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { browserCors, publishableFields, publishableKey } from "../../auth/publishable-key";
import { secretKey, type SecretKeyOptions } from "../../auth/secret-key";
import type { LookupRequest, LookupRoute } from "../../engines/lookup-declarations";
import type { Product } from "../../engines/product";
import { browserOk, browserSchema } from "../../http/browser-answer";
import { ok } from "../../http/envelope";
import { describe } from "../../http/openapi";
import { deferrerOf } from "../../http/trace-answer";
import { jsonBody, pathParams, queryParams } from "../../http/validation";
import { dataSchema, metaSchema } from "../../lookups/route-schemas";
import { type LookupCaller, runDeclared, WALK_REFUSALS } from "../../lookups/service";
import { registeredProducts } from "../../products/registry";
import type { AppEnv } from "../../types";
import { apiErrorOf, isErrorCode } from "./rest-act";

type Validated = (target: "json" | "param" | "query") => unknown;

/** The caller of a request whose key was checked: the lookup service's principal, admission and request id. */
function callerOf(c: Context<AppEnv>): LookupCaller {
  const principal = c.var.principal;
  if (!principal) throw new Error("a lookup route runs after its key check");
  return {
    env: c.env,
    principal,
    requestId: c.var.requestId,
    ...(c.var.admission ? { admission: c.var.admission } : {}),
    defer: deferrerOf(c),
  };
}

/**
 * Secret-key auth for a lookup route: the walk's first call to the account's object (its hold, or its balance read when
 * every answer is free) counts the key's rate limit, so a lookup makes one round trip to that object before its work.
 */
const lookupKey = (options: Omit<SecretKeyOptions, "admitOnFirstCall">) =>
  secretKey({ ...options, admitOnFirstCall: true });

function requestOf(c: Context<AppEnv>, route: LookupRoute): LookupRequest {
  const valid = (c.req.valid as unknown as Validated).bind(c.req);
  return {
    json: route.request.json ? valid("json") : undefined,
    param: route.request.param ? valid("param") : undefined,
    query: route.request.query ? valid("query") : undefined,
    clientAddress: c.req.header("CF-Connecting-IP") ?? "",
  };
}

/** Runs one declared route through the shared adapter, answered in the envelope its kind documents. */
async function answer(c: Context<AppEnv>, owner: Product, route: LookupRoute) {
  const outcome = await runDeclared({ caller: callerOf(c), owner, route, request: requestOf(c, route) });
  if (!outcome.ok) throw apiErrorOf(outcome.error);
  c.set("creditsUsed", (c.var.creditsUsed ?? 0) + outcome.creditsUsed);
  if (route.kind === "browser") return browserOk(c, outcome.data as object);
  return ok(c, outcome.data, outcome.meta);
}

/** The middleware chain of a declared route: its documentation, key check, validation, then the answer. */
function handlers(owner: Product, tag: string, route: LookupRoute): MiddlewareHandler<AppEnv>[] {
  const browser = route.kind === "browser";
  const doc = describe({
    operationId: route.operationId,
    tag,
    summary: route.summary,
    description: route.description,
    response: browser ? browserSchema(route.response as z.ZodObject) : dataSchema(route),
    meta: metaSchema(route),
    errors: [...WALK_REFUSALS, ...(route.errors ?? []).filter(isErrorCode)],
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
export function restLookupRoutes(last = false) {
  const routes = new Hono<AppEnv>();
  for (const product of registeredProducts()) {
    for (const route of product.lookups?.routes ?? [])
      if (Boolean(route.last) === last) mount(routes, product, product.lookups!.tag, route);
  }
  return routes;
}
