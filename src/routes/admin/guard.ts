import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../../platform/tokens";
import { ApiError, notFound } from "../../http/errors";
import type { AppEnv } from "../../types";

const encoder = new TextEncoder();

/**
 * The operator API exists only where ADMIN_TOKEN is set (otherwise every admin path is a plain 404); the token is
 * compared in constant time.
 */
export const adminToken = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw notFound("Path");
  const given = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  if (!crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b))) {
    throw new ApiError("UNAUTHENTICATED", "Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`.");
  }
  return next();
};
