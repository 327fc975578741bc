/**
 * Types of requests and answers, derived from the generated `paths` (openapi.gen.ts) so they follow the served
 * OpenAPI document: `npm run client:generate` after the API changes, and the compiler points at every caller it breaks.
 */
import type { paths } from "./openapi.gen.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** Every path that has an operation for `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never;
}[keyof paths];

export type Operation<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer Op> ? Op : never;

type PathParams<Op> = Op extends { parameters: { path: infer Path } } ? { path: Path } : { path?: undefined };
type QueryParams<Op> = Op extends { parameters: { query: infer Query } }
  ? { query: Query }
  : Op extends { parameters: { query?: infer Query } }
    ? { query?: Query }
    : { query?: undefined };
type JsonBody<Op> = Op extends { requestBody: { content: { "application/json": infer Body } } }
  ? { body: Body }
  : Op extends { requestBody?: { content: { "application/json": infer Body } } }
    ? { body?: Body }
    : { body?: undefined };

/** Per-call options: what the operation takes, plus extra headers (e.g. `Idempotency-Key`) and an abort signal. */
export type RequestOptions<Op> = PathParams<Op> &
  QueryParams<Op> &
  JsonBody<Op> & { headers?: Record<string, string>; signal?: AbortSignal };

/** Options may be left out when nothing in them is required. */
export type OptionsArg<Op> =
  {} extends RequestOptions<Op> ? [options?: RequestOptions<Op>] : [options: RequestOptions<Op>];

type SuccessContent<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: infer C } ? C : never) : never }[keyof R]
  : never;
type SuccessBody<Op> =
  SuccessContent<Op> extends infer C
    ? "application/json" extends keyof C
      ? C["application/json"]
      : C[keyof C]
    : never;

/** A success: `data` and `meta` of the envelope (a non-JSON answer, such as CSV, is `data` as text). */
export interface Answer<Data, Meta> {
  data: Data;
  meta: Meta;
  status: number;
  /** `X-Request-Id` of the call that answered (the last attempt when it was retried). */
  requestId: string | null;
}

export type AnswerOf<Op> =
  SuccessBody<Op> extends { success: true; data: infer Data }
    ? Answer<Data, SuccessBody<Op> extends { meta: infer Meta } ? Meta : undefined>
    : Answer<SuccessBody<Op>, undefined>;
