import { type Payer, refundRequest, type StopReason } from "../engines/credits/credits";
import type { LookupRequest, LookupRoute } from "../engines/lookup-declarations";
import type { Defer, Product, WalkOptions, WalkProduct } from "../engines/product";
import { walk, type WalkRun } from "../engines/walk/walk";
import { webhookUrlProblem } from "../engines/webhooks/url-rule";
import type { Admission } from "../limits/admission";
import type { Principal } from "../types";

/**
 * The lookup module: a declared route run for any surface (REST, the tool protocol, try it), the one lookup service
 * under it, the refusals it answers as values, and the meta its answers carry. A surface validates the request against
 * the route's schemas, calls `runDeclared` and renders the outcome its own way.
 */

/** Who asks, as every surface knows it once the key is checked. */
export interface LookupCaller {
  env: Env;
  /** The checked key: secret (with scopes), publishable (browser lookups) or the sandbox key (samples only). */
  principal: Principal;
  /** The request's pending rate limits, counted by its first call to the account's object (absent: none left). */
  admission?: Admission;
  /** Ledger and history id of the answers (the HTTP request id, a tool call's id). */
  requestId: string;
  /** The request's `waitUntil`: settling and list writes then happen after the answer (src/engines/walk/walk.ts). */
  defer?: Defer;
}

/**
 * Why a lookup did not run, as a value every surface renders its own way (HTTP: the spec's error envelope and status;
 * the tool protocol: a tool error carrying `code`). Nothing was held or charged.
 */
export interface Refusal {
  code:
    | "KEY_SCOPE_DENIED"
    | "SANDBOX_VALUE_NOT_ALLOWED"
    | "RATE_LIMITED"
    | "INSUFFICIENT_CREDITS"
    | "KEY_SPEND_CAP_REACHED";
  message: string;
  /** When asking again can succeed (rate limits; the daily cap resets at 00:00 UTC). */
  retryAfterSeconds?: number;
}

/**
 * The refusal a principal meets before anything is read for it: a secret key without the product's scope, the sandbox
 * key with a value that is not a documented sample. Null when the lookup (or its quote) may go on.
 */
export function keyRefusal<In, Out>(
  principal: Principal,
  product: WalkProduct<In, Out>,
  inputs: readonly In[],
): Refusal | null {
  if (principal.kind === "secret" && !principal.scopes.includes(product.scope))
    return { code: "KEY_SCOPE_DENIED", message: `The key's scopes do not include \`${product.scope}\`.` };
  if (principal.kind === "sandbox" && !inputs.every((input) => product.isSample(input)))
    return { code: "SANDBOX_VALUE_NOT_ALLOWED", message: "The sandbox key only answers the documented sample values." };
  return null;
}

/** The error codes a lookup's walk may refuse with, beyond its key check (documented on every lookup). */
export const WALK_REFUSALS = ["INSUFFICIENT_CREDITS", "KEY_SPEND_CAP_REACHED"] as const;

/** The walk's refusal of the first value: the key's daily cap (until 00:00 UTC), else an empty balance. */
export function refusalOf(reason: StopReason, now = Date.now()): Refusal {
  return reason === "key_spend_cap"
    ? {
        code: "KEY_SPEND_CAP_REACHED",
        message: "This key has reached its daily credit cap; it resets at 00:00 UTC.",
        retryAfterSeconds: secondsToUtcMidnight(now),
      }
    : { code: "INSUFFICIENT_CREDITS", message: "The balance is empty; the lookup did not run." };
}

/** Whole seconds until the next 00:00 UTC, when daily caps reset (at least 1). */
const secondsToUtcMidnight = (now: number) =>
  Math.max(1, Math.ceil((new Date(now).setUTCHours(24, 0, 0, 0) - now) / 1000));

/**
 * What the walk answered: items in input order up to where it stopped (`{index, input, data, meta}`), `requested`,
 * `processed`, `creditsUsed`, `creditsRemaining`, `stoppedReason`, and `prepaid` (IP's placing lookups left, else
 * null).
 */
export type LookupAnswer<In, Out> = Omit<WalkRun<In, Out>, "refused" | "rateLimited">;

export type LookupOutcome<In, Out> = { ok: true; answer: LookupAnswer<In, Out> } | { ok: false; refusal: Refusal };

/**
 * Who pays for a request: the key's account and daily cap; nobody for the sandbox. The request's first call carries its
 * admission.
 */
export const payerOf = (principal: Principal, admission?: Admission): Payer | null =>
  principal.kind === "sandbox"
    ? null
    : {
        accountId: principal.accountId,
        keyId: principal.keyId,
        dailyCreditCap: principal.dailyCreditCap,
        ...(admission ? { admission } : {}),
      };

const DEFAULT_OPTIONS: WalkOptions = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

interface Served<In, Out> {
  caller: LookupCaller;
  /** Read once per request, from the checked key: the walk's and a follow-up's. */
  payer: Payer | null;
  product: WalkProduct<In, Out>;
  inputs: In[];
  options: Partial<WalkOptions>;
}

/**
 * The one lookup service: a principal looks up `inputs` of `product`, with the same keys, limits, billing, repeats and
 * policy on every surface. Refusals (scope, sandbox value, rate limit, balance, the key's daily cap) come back as
 * values and nothing is held or charged for them; answers come back with what they cost. Validation of the request is
 * the surface's (it knows its own field names).
 */
async function serveLookup<In, Out>({
  caller,
  payer,
  product,
  inputs,
  options,
}: Served<In, Out>): Promise<LookupOutcome<In, Out>> {
  const before = keyRefusal(caller.principal, product, inputs);
  if (before) return refused(before);
  // If the request ends in an error after all, whatever its walk settled before the answer is refunded; a refusal
  // (answered as an error too) settled nothing, and asks the account's object nothing more.
  let refusal = false;
  const refund = async () => {
    if (!refusal) await refundRequest(caller.env, payer!.accountId, caller.requestId);
  };
  if (payer && caller.defer) caller.defer(null, refund);
  const run = await walk(product, {
    env: caller.env,
    payer,
    requestId: caller.requestId,
    inputs,
    options: { ...DEFAULT_OPTIONS, ...options },
    ...(caller.defer ? { defer: caller.defer } : {}),
  });
  refusal = Boolean(run.rateLimited || run.refused);
  if (run.rateLimited) {
    const { message, retryAfterSeconds } = run.rateLimited;
    return refused({ code: "RATE_LIMITED", message, retryAfterSeconds });
  }
  if (run.refused) return refused(refusalOf(run.refused));
  const { refused: _none, rateLimited: _no, ...answer } = run;
  return { ok: true, answer };
}

const refused = (refusal: Refusal) => ({ ok: false as const, refusal });

/**
 * A declared lookup's failure, as every surface renders it its own way (REST: the error envelope and the code's
 * status; the tool protocol: a tool error). `code` is one of the API's error codes.
 */
export interface SurfaceError {
  code: string;
  message: string;
  /** VALIDATION_FAILED: messages by field. */
  errors?: Record<string, string[]>;
  retryAfterSeconds?: number;
}

/** The answer of a declared lookup: its `data` and `meta` as the route documents them (meta without request_id). */
export type DeclaredOutcome =
  | { ok: true; data: unknown; meta: Record<string, unknown>; creditsUsed: number }
  | { ok: false; error: SurfaceError };

export interface DeclaredCall {
  caller: LookupCaller;
  /** The product declaring the route (the walk runs `route.product` when the route names one). */
  owner: Product;
  route: LookupRoute;
  /** The request validated against the route's own schemas, by the surface. */
  request: LookupRequest;
}

const invalid = (errors: Record<string, string[]>): DeclaredOutcome => ({
  ok: false,
  error: { code: "VALIDATION_FAILED", message: "The request has invalid fields.", errors },
});

/** A customer URL field that the webhook rule refuses, as field errors (null when every one passes). */
function urlProblems(env: Env, route: LookupRoute, json: unknown): Record<string, string[]> | null {
  const body = (json ?? {}) as Record<string, unknown>;
  for (const field of route.urlFields ?? []) {
    const value = body[field];
    const problem = typeof value === "string" ? webhookUrlProblem(env, value) : null;
    if (problem) return { [field]: [problem] };
  }
  return null;
}

/**
 * Runs one declared route for any surface: the declaration's inputs and options through the lookup service, and the
 * answer in the shape its kind documents (batch: `results` and the walk's meta; a read: its own answer or error; a
 * single lookup: its data, meta and follow-up).
 */
export async function runDeclared(call: DeclaredCall): Promise<DeclaredOutcome> {
  const { caller, owner, route, request } = call;
  const problems = urlProblems(caller.env, route, request.json);
  if (problems) return invalid(problems);
  const payer = payerOf(caller.principal, caller.admission);
  const [inputs, options] = [route.inputs(request), route.options?.(request)];
  if (!Array.isArray(inputs)) return invalid(inputs.invalid);
  const product = route.product ?? owner;
  const outcome = await serveLookup({
    caller,
    payer,
    product,
    inputs,
    options: { honorSuppressions: route.kind === "batch", ...options },
  });
  if (!outcome.ok) return { ok: false, error: outcome.refusal };
  return answerOf(call, outcome.answer, payer);
}

async function answerOf(
  call: DeclaredCall,
  answer: LookupAnswer<unknown, unknown>,
  payer: Payer | null,
): Promise<DeclaredOutcome> {
  const { caller, route, request } = call;
  const creditsUsed = answer.creditsUsed;
  if (route.kind === "batch")
    return { ok: true, data: { results: batchResults(route, answer) }, meta: batchMetaOf(route, answer), creditsUsed };
  const data = answer.items[0]!.data;
  if (route.kind === "browser") return { ok: true, data, meta: {}, creditsUsed };
  const read = route.answer ? route.answer(data) : { data };
  if ("error" in read) return { ok: false, error: read.error };
  // Only a route with a follow-up needs its payer (email's settling re-check); the request's admission was the walk's.
  const { admission: _counted, ...followUp } = payer ?? {};
  const meta = singleMeta(route, answer);
  const { env, requestId, defer } = caller;
  const follow = { env, requestId, defer, payer: payer && (followUp as Payer) };
  return {
    ok: true,
    data: read.data,
    // The follow-up (email's settling re-check) is asked last: what it adds to the meta is the answer's last word.
    meta: { ...meta, ...(route.after ? await route.after(follow, request.json, data) : {}) },
    creditsUsed,
  };
}

const pick = (values: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.filter((name) => values[name] !== undefined).map((name) => [name, values[name]]));

/** The route's own meta fields, its prepaid count last. */
const metaFields = (route: LookupRoute) => [...(route.meta ?? []), ...(route.prepaid ? [route.prepaid] : [])];

/** The route's prepaid count (`ip_lookups_prepaid`), the walk's (0 for a product that sells one unit a credit). */
const prepaidOf = (route: LookupRoute, answer: LookupAnswer<unknown, unknown>) =>
  route.prepaid ? { [route.prepaid]: answer.prepaid ?? 0 } : {};

/** A single lookup's or read's meta: what its one answer cost, and the fields the route declares. */
export function singleMeta(route: LookupRoute, answer: LookupAnswer<unknown, unknown>) {
  const item = answer.items[0]!;
  const values = { ...item.meta, credits_remaining: answer.creditsRemaining, ...prepaidOf(route, answer) };
  return pick(values, ["credits_used", "credits_remaining", "cache_hit", ...metaFields(route)]);
}

/** A batch's meta: how far the walk got, what it cost, and the counts the route declares. */
export function batchMetaOf(route: LookupRoute, answer: LookupAnswer<unknown, unknown>) {
  const counts = Object.entries(route.counts ?? {}).map(([name, holds]) => [
    name,
    answer.items.filter((item) => holds(item.data)).length,
  ]);
  const values = {
    requested: answer.requested,
    processed: answer.processed,
    credits_used: answer.creditsUsed,
    credits_remaining: answer.creditsRemaining,
    stopped_reason: answer.stoppedReason,
    ...prepaidOf(route, answer),
    ...Object.fromEntries(counts),
  };
  return pick(values, [
    "requested",
    "processed",
    ...Object.keys(route.counts ?? {}),
    "credits_used",
    "credits_remaining",
    "stopped_reason",
    ...metaFields(route),
  ]);
}

/** A batch's results, each item with the meta fields the route declares. */
export const batchResults = (route: LookupRoute, answer: LookupAnswer<unknown, unknown>) =>
  answer.items.map(({ index, input, data, meta }) => ({
    index,
    input,
    data,
    meta: pick({ ...meta }, ["credits_used", "cache_hit", ...(route.item?.meta ?? [])]),
  }));
