import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import { database } from "../db/client";
import { holderLeft, revokedByPerson } from "../db/keys";
import { ApiError } from "../http/errors";
import { attachDoc } from "../http/openapi";
import { limitHit } from "../limits/admission";
import { requestSource } from "../limits/source";
import type { AppEnv } from "../types";
import { admitRequest, expectAdmission } from "../limits/admit";
import { confirmChallenge } from "./challenge";
import { findKeyByHash } from "./key-lookup";
import { sha256Hex } from "../platform/tokens";
import { KEY_PATTERNS } from "./keys";

/** Body fields every browser endpoint shares; merge them into the endpoint's own body schema. */
export const publishableFields = {
  key: z.string().max(64).startsWith("pk_", "Must be a publishable key (pk_...)."),
  challenge_token: z.string().max(2048).nullish(),
};

const publishableBody = z.object(publishableFields);

/**
 * CORS for a browser endpoint: any page may ask (the key's allowed domains are checked against Origin afterwards), and
 * it may read `Retry-After` (to back off after a 429) and `X-Request-Id`, which browsers hide cross-origin otherwise.
 */
export const browserCors = () =>
  cors({
    origin: (origin) => origin,
    allowMethods: ["POST"],
    allowHeaders: ["Content-Type"],
    exposeHeaders: ["Retry-After", "X-Request-Id"],
    maxAge: 600,
  });

/** `*.example.com` covers subdomains of example.com; any other entry must equal the Origin's host. */
export function originAllowed(origin: string | undefined, allowedDomains: readonly string[]): boolean {
  if (!origin) return false;
  let host: string;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  return allowedDomains.some((entry) => {
    const domain = entry.toLowerCase();
    return domain.startsWith("*.") ? host.endsWith(domain.slice(1)) : host === domain;
  });
}

const invalidKey = () => new ApiError("INVALID_PUBLISHABLE_KEY", "The publishable key is unknown or revoked.");

/**
 * Authenticates a browser lookup by the `key` in its (already validated) JSON body. Fixed order, first failure answers:
 * 401 INVALID_PUBLISHABLE_KEY, 403 KEY_ACCOUNT_MISMATCH, 403 ORIGIN_NOT_ALLOWED, 429 RATE_LIMITED (20 a minute per
 * visitor IP and key), 403 CHALLENGE_FAILED. The visitor's limit is counted by the lookup's first call to the account's
 * object (its hold or balance read), so a browser lookup makes one round trip to it: the challenge is confirmed before
 * that call, and a failed one is counted then, so a visitor over the limit gets 429 either way. No credit is held for
 * a refused visitor. Email verification does not apply to browser endpoints.
 */
export function publishableKey(): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const body = publishableBody.parse(await c.req.json());
    if (!KEY_PATTERNS.publishable.test(body.key)) throw invalidKey();
    const key = await findKeyByHash(database(c.env), await sha256Hex(body.key), c.req.header("CF-Connecting-IP"));
    if (key?.kind !== "publishable" || revokedByPerson(key) !== null) throw invalidKey();
    if (holderLeft(key))
      throw new ApiError("KEY_ACCOUNT_MISMATCH", "The key's holder is no longer a member of its account.");
    if (!originAllowed(c.req.header("Origin"), key.allowedDomains)) {
      throw new ApiError("ORIGIN_NOT_ALLOWED", "The page's Origin is not one of this key's allowed domains.");
    }
    c.set("principal", {
      kind: "publishable",
      keyId: key.id,
      accountId: key.accountId,
      dailyCreditCap: key.dailyCreditCap,
    });
    expectAdmission(c, key, [limitHit("browserVisitor", `${key.id}:${requestSource(c)}`)]);
    if (key.challengeSecret) {
      await confirmChallenge(c.env, key.challengeSecret, body.challenge_token, visitorIp(c)).catch(
        async (err: unknown) => {
          await admitRequest(c);
          throw err;
        },
      );
    }
    await next();
    await admitRequest(c);
  };
  return attachDoc(middleware, {
    auth: "publishable",
    errors: [
      "INVALID_PUBLISHABLE_KEY",
      "KEY_ACCOUNT_MISMATCH",
      "ORIGIN_NOT_ALLOWED",
      "RATE_LIMITED",
      "CHALLENGE_FAILED",
    ],
  });
}

const visitorIp = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP");
