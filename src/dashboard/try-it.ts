import type { Context, Hono } from "hono";
import { findKeyByHash } from "../auth/key-lookup";
import { KEY_PATTERNS } from "../auth/keys";
import { database } from "../db/client";
import { productNames, productNamed } from "../products/registry";
import { sha256Hex } from "../platform/tokens";
import examples from "../routes/openapi-examples.json";
import type { AppEnv } from "../types";

/** One product's try-it form: the API route it runs and the body it starts with. */
export interface TryForm {
  product: string;
  /** Under /api/v1: the product's declared single lookup (`POST /{product}`). */
  path: string;
  summary: string;
  example: string;
}

/** Products whose documented examples (openapi-examples.json) have no single-lookup body: the docs' own sample. */
const FALLBACK: Record<string, unknown> = { entity: { identifier: "09900001", type: "company_number", country: "GB" } };

const exampleBody = (product: string, path: string): unknown => {
  const listed = (examples as Record<string, { body?: unknown }[]>)[`POST /api/v1${path}`];
  return listed?.find((e) => e.body !== undefined)?.body ?? FALLBACK[product] ?? {};
};

/**
 * Every registered product's single lookup, read from its declaration: a new product gets a form with no change here.
 */
export function tryForms(): TryForm[] {
  return productNames().flatMap((name) => {
    const route = productNamed(name)?.lookups?.routes.find((r) => r.kind === "single" && r.method === "post");
    return route
      ? [
          {
            product: name,
            path: route.path,
            summary: route.summary,
            example: JSON.stringify(exampleBody(name, route.path), null, 2),
          },
        ]
      : [];
  });
}

/** Whether a pasted secret key is a key of this account (revoked or not: the API answers for a revoked one). */
export async function isAccountKey(
  env: Env,
  accountId: string,
  key: string,
  source: string | undefined,
): Promise<boolean> {
  if (!KEY_PATTERNS.secret.test(key)) return false;
  const row = await findKeyByHash(database(env), await sha256Hex(key), source);
  return row?.accountId === accountId;
}

export interface TryAnswer {
  status: number;
  /** The API's envelope as it answered: `{success, data, meta}` or `{success: false, error}`. */
  envelope: Record<string, unknown>;
}

/**
 * Sends a JSON body to an API route as the request it is, in-process, with the key as `Authorization`: the key, its
 * scopes and source allowlist, rate limits, the daily cap, holds, repeats, billing and the request log are the HTTP
 * route's, by construction. The browser's source address travels with it, so the key's allowlist judges the person.
 * `extra` headers go with it (a bulk upload's `Idempotency-Key`).
 */
export async function forwardToApi(
  c: Context,
  app: () => Hono<AppEnv>,
  path: string,
  key: string,
  body: string,
  extra: Record<string, string> = {},
): Promise<TryAnswer> {
  const headers = new Headers({
    ...extra,
    Authorization: `Bearer ${key}`,
    "Content-Type": "application/json",
    Accept: "application/json",
  });
  const source = c.req.header("CF-Connecting-IP");
  if (source) headers.set("CF-Connecting-IP", source);
  const request = new Request(new URL(`/api/v1${path}`, c.req.url), { method: "POST", headers, body });
  const response = await app().fetch(request, c.env, c.executionCtx);
  const envelope = (await response.json()) as Record<string, unknown>;
  return { status: response.status, envelope };
}

/** Runs one lookup as the API request it is (the product's single lookup route, which calls the lookup service). */
export const runTry = (c: Context, app: () => Hono<AppEnv>, form: TryForm, key: string, body: string) =>
  forwardToApi(c, app, form.path, key, body);
