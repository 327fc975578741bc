import type { Hono } from "hono";
import type { AppEnv } from "../types";
import { ApiError } from "./errors";

/**
 * After every route is registered: a wrong verb on a known path answers 405 METHOD_NOT_ALLOWED with `Allow`, instead
 * of the 404 it would otherwise fall through to. Derived from the route table, so new routes are covered without
 * effort.
 */
export function answerWrongMethods(app: Hono<AppEnv>): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const { method, path } of app.routes) {
    if (method === "ALL" || path.includes("*")) continue;
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].sort().join(", ");
    app.all(path, () => {
      throw new ApiError("METHOD_NOT_ALLOWED", `This path accepts ${allow}.`, { headers: { Allow: allow } });
    });
  }
}
