import { findKeyByHash } from "../../auth/key-lookup";
import { KEY_PATTERNS } from "../../auth/keys";
import { database } from "../../db/client";
import { exampleBody } from "../../products/intro";
import { productNamed, registeredProducts } from "../../products/registry";
import { sha256Hex } from "../../platform/tokens";
import type { LookupRequest, LookupRoute } from "../../engines/lookup-declarations";
import { fieldErrors } from "../../http/validation";
import { runDeclared } from "../../lookups/service";
import { refused, type ActOutcome } from "../key-act";
import type { DashContext } from "./context";
import { finishKeyRequest, keyRequest, lookupCallerOf, type ApiAnswer } from "./key-request";

/** One product's try-it form: the API route it runs and the body it starts with. */
export interface TryForm {
  product: string;
  /** Under /api/v1: the product's declared single lookup (`POST /{product}`). */
  path: string;
  summary: string;
  example: string;
}

/**
 * Every registered product's single lookup, read from its declaration, starting with its example's body (its
 * surface's): a new product gets a form with no change here.
 */
export function tryForms(): TryForm[] {
  return registeredProducts().flatMap((product) => {
    const route = singleLookup(product.name)?.route;
    return route
      ? [
          {
            product: product.name,
            path: route.path,
            summary: route.summary,
            example: JSON.stringify(exampleBody(product, route.path) ?? {}, null, 2),
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

/** The single lookup's declaration and its product, as the API's route for it is built. */
function singleLookup(name: string) {
  const owner = productNamed(name);
  const route = owner?.lookups?.routes.find((r) => r.kind === "single" && r.method === "post");
  return owner && route ? { owner, route } : null;
}

/** The body as the route's own schema reads it, or its field errors as the API's 422. */
function requestOf(route: LookupRoute, body: string, source: string | undefined): LookupRequest | ActOutcome {
  const parsed = route.request.json?.safeParse(JSON.parse(body));
  if (parsed && !parsed.success)
    return refused("VALIDATION_FAILED", "The request has invalid fields.", fieldErrors(parsed.error));
  return { json: parsed?.data, param: undefined, query: undefined, clientAddress: source ?? "" };
}

/**
 * Runs one lookup as the API request it stands for: the pasted key checked as the API checks it, then the product's
 * declared single lookup through the lookup service (src/lookups/service.ts) under the dashboard request's
 * id, so the key's scopes, rate limit, daily cap, holds, repeats, billing and request record are the API's.
 */
export async function runTry(c: DashContext, form: TryForm, key: string, body: string): Promise<ApiAnswer> {
  const { owner, route } = singleLookup(form.product)!;
  const product = route.product ?? owner;
  const request = await keyRequest(c, { path: form.path, scope: product.scope }, key);
  if (!("act" in request)) return request;
  const read = requestOf(route, body, request.source);
  if ("ok" in read) return finishKeyRequest(c, request, read);
  const caller = lookupCallerOf(c, request);
  return finishKeyRequest(c, request, await runDeclared({ caller, owner, route, request: read }));
}
