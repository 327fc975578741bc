import { Hono } from "hono";
import { assertSandboxValue } from "../auth/sandbox";
import { ok } from "../http/envelope";
import { lookupMeta } from "../http/meta";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { consistencyResultSchema } from "../products/consistency/schemas";
import { consistency } from "../products/registry";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const OPTIONS = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

/** Whether email, phone, IP, address and company agree, in one call: docs/consistency.md. */
export const consistencyRoutes = new Hono<AppEnv>().post(
  "/consistency",
  describe({
    tag: "Consistency",
    summary: "Compare two or more signals; 1 credit when a check was decided and it is not a 7-day repeat",
    description: "Each signal is answered by its own product (email without the mailbox handshake), all at once; the signals are not billed.",
    response: consistencyResultSchema,
    meta: lookupMeta,
    errors: [...LOOKUP_ERRORS],
  }),
  lookupKey({ scope: "consistency", sandbox: true }),
  jsonBody(consistency.input),
  async (c) => {
    const input = c.req.valid("json");
    assertSandboxValue(c, consistency.isSample(input));
    const run = await paidWalk(c, consistency, [input], OPTIONS);
    const { data, meta } = run.items[0]!;
    return ok(c, data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit });
  },
);
