import { payerOf } from "../engines/credits/payer";
import type { LookupRequest, LookupRoute } from "../engines/lookup-declarations";
import type { Product } from "../engines/product";
import { webhookUrlProblem } from "../engines/webhooks/url-rule";
import { serveLookup, type LookupAnswer, type LookupCaller } from "../lookups/service";
import { batchMetaOf, batchResults, singleMeta } from "../routes/lookup-meta";

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
  const inputs = route.inputs(request);
  if (!Array.isArray(inputs)) return invalid(inputs.invalid);
  const outcome = await serveLookup(caller, route.product ?? owner, inputs, {
    honorSuppressions: route.kind === "batch",
    ...route.options?.(request),
  });
  if (!outcome.ok) return { ok: false, error: outcome.refusal };
  return answerOf(call, outcome.answer);
}

async function answerOf(call: DeclaredCall, answer: LookupAnswer<unknown, unknown>): Promise<DeclaredOutcome> {
  const { caller, route, request } = call;
  const creditsUsed = answer.creditsUsed;
  if (route.kind === "batch")
    return { ok: true, data: { results: batchResults(route, answer) }, meta: batchMetaOf(route, answer), creditsUsed };
  const data = answer.items[0]!.data;
  if (route.kind === "browser") return { ok: true, data, meta: {}, creditsUsed };
  const read = route.answer ? route.answer(data) : { data };
  if ("error" in read) return { ok: false, error: read.error };
  // Only a route with a follow-up needs its payer (email's settling re-check).
  const after = route.after
    ? await route.after(
        { env: caller.env, requestId: caller.requestId, payer: payerOf(caller.principal) },
        request.json,
        data,
      )
    : {};
  return { ok: true, data: read.data, meta: { ...singleMeta(route, answer), ...after }, creditsUsed };
}
