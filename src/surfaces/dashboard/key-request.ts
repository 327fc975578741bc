import type { Context } from "hono";
import { admitPending } from "../../limits/admit";
import { checkSecretKey, type SecretPrincipal } from "../../auth/check-secret-key";
import { ERROR_STATUS, type ErrorCode } from "../../http/errors";
import { logRequest } from "../../http/request-log";
import { Admission, limitHit } from "../../limits/admission";
import { scopeRefusal, type ActOutcome, type KeyAct } from "../key-act";
import type { Scope } from "../../auth/scopes";
import type { Defer } from "../../engines/product";
import { deferrerOf } from "../../http/trace-answer";
import type { LookupCaller, SurfaceError } from "../../lookups/service";
import type { AppEnv } from "../../types";
import type { DashContext } from "./context";

/** What the dashboard shows of an API request it made for the person: the status and the envelope the API answers. */
export interface ApiAnswer {
  status: number;
  /** `{success, data, meta}` or `{success: false, error}`, as the API's route answers it. */
  envelope: Record<string, unknown>;
}

/**
 * A pasted key acting as the API request `POST path` under the dashboard request's id: the key's own
 * checks, scopes, rate limit and request record, as the API's route would have them, without a request to the app.
 */
export interface KeyRequest {
  act: KeyAct & { principal: SecretPrincipal; admission: Admission };
  requestId: string;
  source: string | undefined;
  path: string;
}

const statusOf = (code: string) => ERROR_STATUS[code as ErrorCode] ?? 500;

/** The API's error envelope of a refusal. */
export const refusalAnswer = (error: SurfaceError, requestId: string): ApiAnswer => {
  const { retryAfterSeconds, ...rest } = error;
  const retry = retryAfterSeconds ? { retry_after_seconds: retryAfterSeconds } : {};
  return {
    status: statusOf(error.code),
    envelope: { success: false, error: { ...rest, ...retry, request_id: requestId } },
  };
};

/**
 * The key checked as the API's route checks it (the person's address judged by its allowlist, then the route's scope),
 * or the API's refusal; `route.path` is under /api/v1.
 */
export async function keyRequest(
  c: DashContext,
  route: { path: string; scope: Scope },
  key: string,
): Promise<KeyRequest | ApiAnswer> {
  const requestId = c.var.requestId;
  const source = c.req.header("CF-Connecting-IP");
  const checked = await checkSecretKey(c.env, key, source);
  if (!checked.ok) return refusalAnswer(checked.refusal, requestId);
  const { principal } = checked;
  const scope = scopeRefusal(principal, route.scope);
  if (scope) return refusalAnswer(scope.error, requestId);
  const path = `/api/v1${route.path}`;
  const record = { requestId, accountId: principal.accountId, keyId: principal.keyId, method: "POST", path };
  const admission = new Admission(principal.accountId, [limitHit("key", principal.keyId)], record);
  return { act: { env: c.env, principal, admission }, requestId, source, path };
}

/**
 * The act's answer as the API's envelope, after counting the key's rate limit if the act did not (a refusal then
 * replaces the answer, as the API's middleware does), and recorded as the API request it stands for.
 */
export async function finishKeyRequest(
  c: DashContext,
  request: KeyRequest,
  outcome: ActOutcome,
  success = 200,
): Promise<ApiAnswer> {
  const limited = await admitPending(c.env, request.act.admission);
  const final: ActOutcome = limited ? { ok: false, error: limited } : outcome;
  const answer = final.ok
    ? {
        status: success,
        envelope: { success: true, data: final.data, meta: { ...final.meta, request_id: request.requestId } },
      }
    : refusalAnswer(final.error, request.requestId);
  const { principal } = request.act;
  const written = logRequest(c.env, {
    requestId: request.requestId,
    accountId: principal.accountId,
    keyId: principal.keyId,
    method: "POST",
    path: request.path,
    status: answer.status,
    code: final.ok ? null : final.error.code,
    credits: final.ok ? (final.creditsUsed ?? 0) : 0,
    createdAt: Date.now(),
  });
  c.executionCtx.waitUntil(written);
  return answer;
}

/** The lookup service's caller of a key request: its work after the answer deferred as the API's is. */
export function lookupCallerOf(c: DashContext, request: KeyRequest): LookupCaller {
  const { env, principal, admission } = request.act;
  // The dashboard's context carries the app's variables (and the session): the deferred list is the app's own.
  const app = c as unknown as Context<AppEnv>;
  const defer: Defer = deferrerOf(app);
  return { env, principal, admission, requestId: request.requestId, defer };
}
