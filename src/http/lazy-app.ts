import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AppEnv, AppVariables } from "../types";
import { notFound } from "./errors";
import { answerWrongMethods } from "./method-not-allowed";

type Ctx = Context<AppEnv>;

/** The outer request's context, by its Request, so the sub-app's context can share its variables. */
const outerOf = new WeakMap<Request, Ctx>();

function copyVariables(from: Ctx, to: Ctx): void {
  const copy = <K extends keyof AppVariables>(key: K) => to.set(key, from.var[key]);
  for (const key of Object.keys(from.var) as (keyof AppVariables)[]) copy(key);
}

/**
 * Variables flow in (request id, the request log's list of deferred work) and back out (the principal, credits and
 * error code the request log records), as they would if the routes were mounted on the outer app.
 */
const shareVariables: MiddlewareHandler<AppEnv> = async (c, next) => {
  const outer = outerOf.get(c.req.raw);
  if (outer) copyVariables(outer, c);
  try {
    await next();
  } finally {
    if (outer) copyVariables(c, outer);
  }
};

/**
 * The loaded sub-app behind the shared variables, with its own 405s (the outer app's table never saw its routes).
 * Errors and unknown paths are thrown to the outer app, whose one error handler answers them.
 */
function bridge(sub: Hono<AppEnv>): Hono<AppEnv> {
  const outer = new Hono<AppEnv>().use("*", shareVariables).route("/", sub);
  answerWrongMethods(outer);
  outer.onError((err) => {
    throw err;
  });
  outer.notFound(() => {
    throw notFound("Path");
  });
  return outer;
}

function executionCtxOf(c: Ctx): Ctx["executionCtx"] | undefined {
  try {
    return c.executionCtx;
  } catch {
    // `app.request()` in a test has none; the sub-app then has none either, as the outer app.
    return undefined;
  }
}

/**
 * A sub-app whose modules load on its first request instead of at the Worker's startup: mount it with
 * `app.all(path, lazyApp(() => import("./x").then((m) => m.routes)))` for every path it serves. The bundle still
 * holds it (esbuild keeps a dynamic import in the one bundle), but its module code runs only when first asked for, so
 * an isolate that only answers lookups never evaluates the dashboard, payments or the tool protocol.
 */
export function lazyApp(load: () => Promise<Hono<AppEnv>>): MiddlewareHandler<AppEnv> {
  let loaded: Hono<AppEnv> | undefined;
  return async (c) => {
    // Only the loaded app is shared between requests: an import under way belongs to the request that started it,
    // which another must not await (src/platform/io-scope.ts), so the first requests each await their own (the
    // runtime evaluates the module once). A failed load is not remembered: the next request tries again.
    const sub = loaded ?? (loaded = bridge(await load()));
    outerOf.set(c.req.raw, c);
    return sub.fetch(c.req.raw, c.env, executionCtxOf(c));
  };
}
