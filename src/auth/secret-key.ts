import type { MiddlewareHandler } from "hono";
import { ApiError } from "../http/errors";
import { attachDoc } from "../http/openapi";
import { limitHit } from "../limits/admission";
import type { AppEnv } from "../types";
import { admitRequest, expectAdmission } from "../limits/admit";
import { checkSecretKey } from "./check-secret-key";
import { SANDBOX_KEY } from "./keys";
import { admitSandbox } from "./sandbox";
import type { Scope } from "./scopes";

export interface SecretKeyOptions {
  /** The product family the endpoint belongs to; keys without it get KEY_SCOPE_DENIED. */
  scope?: Scope;
  /** The endpoint answers the sandbox key (for documented sample values only). */
  sandbox?: boolean;
  /**
   * The route's first call to the account's object (a lookup's hold or balance read, the account snapshot), or its own
   * `admitRequest`, counts the key's rate limit, so the request makes one round trip to that object. Whatever the
   * route does before that call must be a read with no side effects. A route that never calls it (an invalid body, say)
   * is admitted after it answered, and a refusal then replaces the answer: a request over the limit gets 429 either
   * way.
   */
  admitOnFirstCall?: boolean;
}

const unauthenticated = (message: string) => new ApiError("UNAUTHENTICATED", message);

function bearerToken(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) throw unauthenticated("Send your secret key as `Authorization: Bearer sk_live_...`.");
  return match[1]!;
}

/**
 * Authenticates a secret key. Checks run in this fixed order and the first failure answers (docs/authentication.md):
 * 401 UNAUTHENTICATED, 403 EMAIL_NOT_VERIFIED, 403 KEY_ACCOUNT_MISMATCH, 403 KEY_IP_NOT_ALLOWED, 403 KEY_SCOPE_DENIED,
 * 429 RATE_LIMITED. A key neither this isolate nor the nearby replica knows, from an address that sent too many unknown
 * keys, answers 429 before any of them, without a primary read (src/auth/key-lookup.ts). The sandbox key takes its
 * own path: SANDBOX_UNAVAILABLE, RATE_LIMITED, SANDBOX_ENDPOINT_NOT_ALLOWED.
 */
export function secretKey(options: SecretKeyOptions = {}): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = bearerToken(c.req.header("Authorization"));
    if (token === SANDBOX_KEY) {
      await admitSandbox(c, options.sandbox === true);
      return next();
    }
    if (token.startsWith("pk_")) throw unauthenticated("Publishable keys only work on the browser endpoints.");
    const checked = await checkSecretKey(c.env, token, c.req.header("CF-Connecting-IP"));
    if (!checked.ok) throw new ApiError(checked.refusal.code, checked.refusal.message);
    const { principal } = checked;
    if (options.scope && !principal.scopes.includes(options.scope)) {
      throw new ApiError("KEY_SCOPE_DENIED", `The key's scopes do not include \`${options.scope}\`.`);
    }
    c.set("principal", principal);
    expectAdmission(c, { id: principal.keyId, accountId: principal.accountId }, [limitHit("key", principal.keyId)]);
    if (!options.admitOnFirstCall) await admitRequest(c);
    await next();
    await admitRequest(c);
  };
  return attachDoc(middleware, {
    auth: "secret",
    errors: [
      "UNAUTHENTICATED",
      "EMAIL_NOT_VERIFIED",
      "KEY_ACCOUNT_MISMATCH",
      "KEY_IP_NOT_ALLOWED",
      "RATE_LIMITED",
      ...(options.scope ? (["KEY_SCOPE_DENIED"] as const) : []),
      "SANDBOX_UNAVAILABLE",
      ...(options.sandbox ? (["SANDBOX_VALUE_NOT_ALLOWED"] as const) : (["SANDBOX_ENDPOINT_NOT_ALLOWED"] as const)),
    ],
  });
}
