import { Hono } from "hono";
import type { AppEnv } from "../types";
import { openApiDocument } from "../http/openapi";

type Routes = Parameters<typeof openApiDocument>[0];

/** `GET /api/v1/openapi.json`, no key: built once from the finished route table. */
export function openApiRoutes(routes: () => Routes) {
  let document: ReturnType<typeof openApiDocument> | undefined;
  return new Hono<AppEnv>().get("/openapi.json", (c) => c.json((document ??= openApiDocument(routes()))));
}
