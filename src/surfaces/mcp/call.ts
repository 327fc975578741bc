import type { Context, Hono } from "hono";
import { payerOf } from "../../engines/credits/payer";
import type { Product, WalkOptions } from "../../engines/product";
import { planList, recallStored } from "../../engines/walk/plan";
import { monitoredProduct, productNamed, registeredProducts } from "../../products/registry";
import type { AppEnv } from "../../types";

/**
 * The one door from tools into products, the account, bulk runs and monitors. Today it forwards each call to the Hono
 * app in-process, as the HTTP request the API documents (the caller's own Authorization and source address), and reads
 * the envelope back: keys, scopes, limits, caps, holds, repeats, the ledger and the request log are therefore the
 * HTTP path's by construction. When the lookup service lands, this module switches to it and nothing else moves.
 */
export interface Caller {
  c: Context<AppEnv>;
  app: () => Hono<AppEnv>;
}

export interface ApiCall {
  method: "GET" | "POST";
  /** Under /api/v1, path parameters filled in. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface ApiFailure {
  code: string;
  message: string;
  request_id: string;
  errors?: Record<string, string[]>;
  /** From a 429's Retry-After, so an agent knows when to try again. */
  retry_after_seconds?: number;
}

export type ApiAnswer =
  | { ok: true; data: Record<string, unknown>; meta: Record<string, unknown> }
  | { ok: false; status: number; error: ApiFailure };

type Envelope =
  | { success: true; data: Record<string, unknown>; meta?: Record<string, unknown> }
  | { success: false; error: ApiFailure };

/** One API call as HTTP makes it; a CSV answer (bulk results) comes back as `data.csv`. */
export async function callApi(caller: Caller, call: ApiCall): Promise<ApiAnswer> {
  const { c } = caller;
  const url = new URL(`/api/v1${call.path}`, c.req.url);
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  const headers = new Headers({ Authorization: c.req.header("Authorization") ?? "", Accept: "application/json" });
  const source = c.req.header("CF-Connecting-IP");
  if (source) headers.set("CF-Connecting-IP", source);
  if (call.body !== undefined) headers.set("Content-Type", "application/json");
  const request = new Request(url, {
    method: call.method,
    headers,
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  // The API request counts the key's rate limit itself; the /mcp request carrying this call then does not count again.
  c.set("admission", undefined);
  const response = await caller.app().fetch(request, c.env, c.executionCtx);
  if (!(response.headers.get("Content-Type") ?? "").includes("application/json")) {
    const text = await response.text();
    const requestId = response.headers.get("X-Request-Id") ?? "";
    if (response.ok) return { ok: true, data: { csv: text }, meta: { request_id: requestId } };
    return {
      ok: false,
      status: response.status,
      error: { code: "SERVER_ERROR", message: text.slice(0, 200), request_id: requestId },
    };
  }
  const envelope = (await response.json()) as Envelope;
  if (envelope.success) return { ok: true, data: envelope.data, meta: envelope.meta ?? {} };
  const retryAfter = Number(response.headers.get("Retry-After"));
  return {
    ok: false,
    status: response.status,
    error: { ...envelope.error, ...(retryAfter > 0 ? { retry_after_seconds: retryAfter } : {}) },
  };
}

/** The most distinct values whose repeats a quote reads (100 statements). */
export const REPEAT_READ_LIMIT = 9_000;

/** What a list of values would cost at most, before anything is held. */
export interface Estimate {
  values: number;
  distinct: number;
  /** Distinct values answered free: test values and malformed ones, 7-day repeats, suppressed ones. */
  free: number;
  /** Distinct values that may be charged (each at most one unit of the product). */
  chargeable: number;
  max_credits: number;
}

/**
 * Prices a list as the paid walk would plan it: dedupe, local answers (test values), then the account's repeat window
 * and suppressions, read but not taken. Every value left may cost one unit (the price rules never charge more), so
 * the figure is an upper bound; a repeat that expires between this and the call is the one way it can move.
 */
export async function estimate(
  caller: Caller,
  productName: string,
  values: unknown[],
  options: WalkOptions,
): Promise<Estimate> {
  const product = productNamed(productName) ?? monitoredProduct(productName);
  if (!product) throw new Error(`no product ${productName}`);
  const principal = caller.c.var.principal;
  if (principal?.kind === "secret" && !principal.scopes.includes(product.scope)) {
    throw new ScopeDenied(product.scope);
  }
  const inputs = values.map((value) => asInput(product, value, options.extra));
  const readable = inputs.filter((input): input is { input: unknown } => input !== null).map((input) => input.input);
  const plan = await planList(product, readable);
  // Repeats are read 90 keys a statement; past REPEAT_READ_LIMIT keys every value counts as chargeable instead, which
  // keeps the figure an upper bound without hundreds of reads (a Worker invocation has a budget of them).
  if (plan.uniques.length <= REPEAT_READ_LIMIT)
    await recallStored({
      env: caller.c.env,
      product,
      payer: payerOf(principal),
      uniques: plan.uniques,
      options,
      now: Date.now(),
    });
  const free = plan.uniques.filter((u) => u.free || u.repeat).length;
  // A value the product cannot read is answered 422 by the route, free; it is counted as chargeable all the same.
  const chargeable = plan.uniques.length - free + (inputs.length - readable.length);
  const distinct = plan.uniques.length + (inputs.length - readable.length);
  return {
    values: values.length,
    distinct,
    free,
    chargeable,
    max_credits: Math.ceil((chargeable * (product.holdUnits?.(options) ?? 1)) / product.unitsPerCredit),
  };
}

/** The key's scopes do not cover the product asked about: the quote answers KEY_SCOPE_DENIED as the call would. */
export class ScopeDenied extends Error {
  constructor(readonly scope: string) {
    super(`The key's scopes do not include \`${scope}\`.`);
  }
}

/**
 * A value as the route hands it to the walk (address: a one-line row takes the request's `country`); null if
 * unreadable.
 */
function asInput(product: Product, value: unknown, extra: Record<string, unknown>): { input: unknown } | null {
  const resolved = product.bulk?.rows?.resolve(value, extra);
  if (resolved) return "input" in resolved ? resolved : null;
  const parsed = product.input.safeParse(value);
  return parsed.success ? { input: parsed.data } : null;
}

/** What the engines serve, by name: products with bulk runs (and their list field), monitor kinds (and their path). */
export function catalog() {
  const products = registeredProducts();
  return {
    bulk: products.filter((p) => p.bulk).map((p) => ({ product: p.name as string, field: p.bulk!.field })),
    monitors: products
      .flatMap((p) => [p, ...(p.companions ?? [])])
      .filter((p) => p.monitor)
      .map((p) => ({
        kind: p.monitor!.family ?? p.name,
        base: `/${p.name}/${p.monitor!.path ?? "monitors"}`,
        listField: p.monitor!.listField,
      })),
  };
}
