import type { MiddlewareHandler } from "hono";
import { ApiError, notFound, rateLimited } from "../../../http/errors";
import { judgeGuess, LIMITS } from "../../../limits/limiter";
import { requestSource } from "../../../limits/source";
import { sha256Hex } from "../../../platform/tokens";
import type { AppEnv } from "../../../types";

/**
 * The operator API exists only where ADMIN_TOKEN is set (otherwise every admin path is a plain 404). The token is
 * judged, in constant time, by the source address's own limiter object (docs/operations.md, "Operator API"): a source
 * that sent 10 wrong tokens in 15 minutes (IPv6 by its /64) is answered 429 without its token being looked at, so
 * guessing is throttled however the guesses are spread in time; the right token never counts.
 */
export const adminToken = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw notFound("Path");
  const given = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  const judged = await judgeGuess(c.env, "operatorGuesses", requestSource(c), { given: a, expected: b });
  if (judged.outcome === "refused") throw rateLimited(judged.retryAfterSeconds, LIMITS.operatorGuesses.message);
  if (judged.outcome === "wrong")
    throw new ApiError("UNAUTHENTICATED", "Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`.");
  return next();
};
