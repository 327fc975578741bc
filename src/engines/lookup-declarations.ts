import type { z } from "zod";
import type { Payer } from "./credits/credits";
import type { Defer, WalkOptions } from "./product/context";
import type { WalkProduct } from "./product/walk-roles";

/**
 * A product's declarations: its lookups as data (src/products/<name>/declarations.ts). The REST adapter mounts every
 * declaration (src/surfaces/api/rest-lookups.ts); the tool protocol makes a tool of each route that declares `tool`
 * (src/surfaces/mcp/lookup-tools.ts); the dashboard's try-it forms are the `single` POST routes. Each surface validates
 * its own request shape, hands the request to the lookup module (`runDeclared`, src/lookups/service.ts), and
 * renders the answer its own way; the service's walk then calls the
 * product's answering function (`lookup` of its product object, src/products/<name>/lookup.ts). Products declare;
 * they never build a response.
 *
 * - `single`: one value, answered with its meta (`POST /{product}`, and reads such as `GET /ip/{ip}`).
 * - `batch`: a list walked in order, one request; `results` plus the walk's meta.
 * - `browser`: `POST /{product}/public` with a publishable key: the answer without meta.
 * - `read`: the product's own extra reads (email domain, phone blocks, IP ASN / range, address listings), each through
 *   the walk of its own product object, answered like a single lookup.
 */
export type LookupKind = "single" | "batch" | "browser" | "read";

/** Meta fields a lookup shows beyond its kind's base (single/read: credits_used, credits_remaining, cache_hit). */
export type LookupMetaField = "suppressed" | "refreshed" | "fair_use_billed" | "settling";

/** Per-item meta fields of a batch beyond credits_used and cache_hit. */
export type ItemMetaField = "suppressed" | "refreshed" | "fair_use_billed";

/** The validated request as a surface hands it to a declaration. */
export interface LookupRequest<J = unknown, P = unknown, Q = unknown> {
  json: J;
  param: P;
  query: Q;
  /** The caller's own address (`CF-Connecting-IP`), empty when unknown. */
  clientAddress: string;
}

/** A field-level rejection of the request (the surface answers VALIDATION_FAILED): field path -> messages. */
export interface Invalid {
  invalid: Record<string, string[]>;
}

/** What a read answers: its data, or one of its documented error codes (the surface turns it into its error). */
export type ReadAnswer = { data: unknown } | { error: { code: string; message: string } };

/**
 * A single lookup's own follow-up (email: the settling re-check), given the answer; returns meta fields to add. `defer`
 * (an HTTP request or tool call): work to start once the answer is out, and only then.
 */
export type AfterLookup<J, Out> = (
  ctx: { env: Env; requestId: string; payer: Payer | null; defer?: Defer },
  json: J,
  data: Out,
) => Promise<Record<string, unknown>>;

/**
 * A route offered as a tool of the tool protocol: a title and a description for a model. Its name is the route's
 * operation id in snake_case (`verifyEmail` -> `verify_email`, src/http/operation-ids.ts), the public tool name of
 * docs/agents.md. The arguments are the route's path parameters, query and body fields, flattened.
 */
export interface LookupTool {
  title: string;
  description: string;
  /** The lookup may reach the outside world (DNS, RDAP, mail servers, partners). */
  openWorld: boolean;
  /** The product answers documented test values the same way, free (the tool says so). */
  testValues?: boolean;
}

export interface TypedLookupRoute<In, Out, J, P, Q> {
  kind: LookupKind;
  method: "get" | "post";
  /** Path under the API base, in Hono's syntax (`/ip/:ip`). */
  path: string;
  /**
   * The operation's stable name in the OpenAPI document, camelCase and verb first (`verifyEmail`, `lookupIps`;
   * src/http/operation-ids.ts); its tool, if any, is named after it.
   */
  operationId: string;
  /** The product object the walk runs (default: the product declaring the route); reads name their own. */
  product?: WalkProduct<In, Out>;
  /** For a model and a human: what it does and costs. `description` explains the verdicts and refers to docs/. */
  summary: string;
  description: string;
  /** Secret-key routes: whether the published sandbox key may call it (documented sample values only). */
  sandbox?: boolean;
  request: { json?: z.ZodType<J>; param?: z.ZodType<P>; query?: z.ZodType<Q> };
  /** JSON body fields holding a customer's URL, checked like every webhook URL before anything runs. */
  urlFields?: readonly string[];
  /** The values to look up, or a field-level rejection. */
  inputs(request: LookupRequest<J, P, Q>): In[] | Invalid;
  /** Walk options (default: no refresh, no max age, suppressions honoured by batches only). */
  options?(request: LookupRequest<J, P, Q>): Partial<WalkOptions>;
  /** Schema of `data` (of each item's `data` for a batch). */
  response: z.ZodType;
  /** Batches: schema of each item's `input`, and the item meta fields shown. */
  item?: { input: z.ZodType; meta: readonly ItemMetaField[] };
  meta?: readonly LookupMetaField[];
  /**
   * A product that sells several units a credit: the meta field, shown last, reporting the account's prepaid units
   * left (IP's `ip_lookups_prepaid`, autocomplete's `autocomplete_prepaid`).
   */
  prepaid?: `${string}_prepaid`;
  /** Batches: counts of answers that hold, added to the meta (entity: `found`). */
  counts?: Record<string, (data: Out) => boolean>;
  /** Reads: the answer's data, or one of `errors`. */
  answer?(data: Out): ReadAnswer;
  after?: AfterLookup<J, Out>;
  /** Error codes of the route's own, beyond the walk's and the key check's. */
  errors?: readonly string[];
  /** Offered as a tool of the tool protocol under this name. */
  tool?: LookupTool;
  /** Mounted after every other route: a path parameter that would otherwise read other routes' paths (`/ip/{ip}`). */
  last?: boolean;
}

/** A declared route as the registry holds it (types erased: the surface hands each route's values back to it). */
export type LookupRoute = TypedLookupRoute<unknown, unknown, unknown, unknown, unknown>;

/** A product's lookups: the OpenAPI tag they are listed under, and the routes. */
export interface LookupDeclarations {
  tag: string;
  routes: readonly LookupRoute[];
}

/** Declares one route with its own types checked; the registry stores it erased. */
export const lookupRoute = <In, Out, J = unknown, P = unknown, Q = unknown>(
  route: TypedLookupRoute<In, Out, J, P, Q>,
) => route as unknown as LookupRoute;
