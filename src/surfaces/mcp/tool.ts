import type { Hono } from "hono";
import { z } from "zod";
import type { WalkOptions } from "../../engines/product";
import { routeDoc, type OperationDoc } from "../../http/openapi";
import type { AppEnv } from "../../types";
import type { Quote, QuoteRequest } from "../../lookups/quote";
import type { ApiFailure, Caller, ToolAnswer } from "./call";

/** One tool: its schemas (the HTTP route's), how it runs, and, for paid tools, what it would look up. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  readOnly: boolean;
  /** The call may reach the outside world (DNS, RDAP, mail servers, partners). */
  openWorld: boolean;
  input: z.ZodObject;
  /** Schemas of `data` and `meta` on success. */
  data: z.ZodType;
  meta: z.ZodObject;
  /** Runs the call with its validated arguments (`quote` is run by the server). */
  invoke?(args: Record<string, unknown>, caller: Caller): Promise<ToolAnswer>;
  /** Paid tools: what the call would look up, for `quote` and `max_credits` (the lookup service prices it). */
  cost?(args: Record<string, unknown>, caller: Caller): Promise<QuoteRequest<unknown>>;
}

export const errorSchema = z.object({
  code: z
    .string()
    .describe(
      "The API's error code (UNAUTHENTICATED, KEY_SCOPE_DENIED, INSUFFICIENT_CREDITS, MAX_CREDITS_EXCEEDED, ...)",
    ),
  message: z.string(),
  request_id: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional().describe("VALIDATION_FAILED: messages by field"),
  retry_after_seconds: z.int().optional(),
  quote: z
    .object({ values: z.int(), distinct: z.int(), free: z.int(), chargeable: z.int(), max_credits: z.int() })
    .optional(),
});

/**
 * A tool's output schema: `data` and `meta` as the HTTP envelope carries them, or `error` when the result has
 * `isError` (the client validates structured content either way, so both shapes live in one object).
 */
export const outputOf = (spec: Pick<ToolSpec, "data" | "meta">) =>
  z.object({
    data: spec.data.optional().describe("The answer, as `data` of the HTTP envelope"),
    meta: spec.meta.extend({ request_id: z.string() }).optional().describe("As `meta` of the HTTP envelope"),
    error: errorSchema.optional().describe("Present instead of data and meta when the call was refused"),
  });

export type ErrorBody = ApiFailure & { quote?: Quote };

export interface Routes {
  routes: () => Hono<AppEnv>["routes"];
}

/**
 * The documented schemas of `method path` (under /api/v1); a tool over an undocumented route is a programming error.
 */
export function docOf(routes: Routes, method: string, path: string): OperationDoc {
  const doc = routeDoc(routes.routes(), method, `/api/v1${path}`);
  if (!doc?.operationId) throw new Error(`no documented route ${method} ${path}`);
  return { ...doc, operationId: doc.operationId };
}

export const walkOptions = (
  args: Record<string, unknown>,
  honorSuppressions: boolean,
  extra: Record<string, unknown> = {},
): WalkOptions => ({
  refresh: args.refresh === true,
  maxAgeSeconds: typeof args.max_age === "number" ? args.max_age : null,
  honorSuppressions,
  extra,
});

/** A refusal met while pricing or checking a call, answered as a tool error. */
export class Refusal extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
}
