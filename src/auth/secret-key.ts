import type { MiddlewareHandler } from "hono";
import { database } from "../db/client";
import { holderLeft } from "../db/keys";
import { ApiError } from "../http/errors";
import { attachDoc } from "../http/openapi";
import { limitHit } from "../limits/admission";
import type { AppEnv } from "../types";
import { admitRequest, expectAdmission } from "./admit";
import { findKeyByHash } from "./key-lookup";
import { sha256Hex } from "../platform/tokens";
import { KEY_PATTERNS, SANDBOX_KEY } from "./keys";
import { admitSandbox, clientIp } from "./sandbox";
import type { Scope } from "./scopes";
import { isAllowedSource } from "./source-allowlist";

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
    if (!KEY_PATTERNS.secret.test(token)) throw unauthenticated("The key is not a well-formed secret key.");

    const key = await findKeyByHash(database(c.env), await sha256Hex(token), c.req.header("CF-Connecting-IP"));
    if (key?.kind !== "secret" || key.revokedAt !== null) throw unauthenticated("The key is unknown or revoked.");
    if (!key.emailVerified) {
      throw new ApiError("EMAIL_NOT_VERIFIED", "Confirm the account's email address before using its keys.");
    }
    if (holderLeft(key))
      throw new ApiError("KEY_ACCOUNT_MISMATCH", "The key's holder is no longer a member of its account.");
    if (key.allowedIps.length > 0 && !isAllowedSource(key.allowedIps, c.req.header("CF-Connecting-IP"))) {
      throw new ApiError("KEY_IP_NOT_ALLOWED", `Requests from ${clientIp(c)} are not on this key's source allowlist.`);
    }
    if (options.scope && !key.scopes.includes(options.scope)) {
      throw new ApiError("KEY_SCOPE_DENIED", `The key's scopes do not include \`${options.scope}\`.`);
    }
    c.set("principal", {
      kind: "secret",
      keyId: key.id,
      accountId: key.accountId,
      userId: key.userId,
      scopes: key.scopes as Scope[],
      dailyCreditCap: key.dailyCreditCap,
    });
    expectAdmission(c, key, [limitHit("key", key.id)]);
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
