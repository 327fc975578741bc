import { Hono, type Context } from "hono";
import { z } from "zod";
import { ok } from "../http/envelope";
import { batchMeta, lookupMeta } from "../http/meta";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import type { EntityItem } from "../products/entity/lookup";
import { entity } from "../products/entity/product";
import { entityItem, entityResultSchema, objectItem, unionItem } from "../products/entity/schemas";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const batchBody = z.object({ identifiers: z.array(entityItem).min(1).max(500) });


const OPTIONS = { refresh: false, maxAgeSeconds: null, honorSuppressions: false, extra: {} };

const lookup = (c: Context<AppEnv>, items: EntityItem[]) => paidWalk(c, entity, items, OPTIONS);

/** Company identifiers (LEI, national company numbers) answered from registers synced locally: docs/entity.md. */
export const entityRoutes = new Hono<AppEnv>()
  .post(
    "/entity",
    describe({
      tag: "Entity",
      summary: "Look up one LEI or company number; 1 credit when a register carries it and it is not a 7-day repeat",
      response: entityResultSchema,
      meta: lookupMeta,
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "entity" }),
    jsonBody(objectItem),
    async (c) => {
      const run = await lookup(c, [c.req.valid("json")]);
      const { data, meta } = run.items[0]!;
      return ok(c, data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit });
    },
  )
  .post(
    "/entity/batch",
    describe({
      tag: "Entity",
      summary: "Look up 1 to 500 identifiers in order; counts as one request",
      description: "Strings are read as LEIs. Walks in order and stops where credits or the key's daily cap run out.",
      response: z.object({
        results: z.array(z.object({ index: z.int(), input: unionItem, data: entityResultSchema, meta: z.object({ credits_used: z.int(), cache_hit: z.boolean() }) })),
      }),
      meta: batchMeta.extend({ found: z.int() }),
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "entity" }),
    jsonBody(batchBody),
    async (c) => {
      const run = await lookup(c, c.req.valid("json").identifiers);
      const results = run.items.map(({ index, input, data, meta }) => ({ index, input, data, meta: { credits_used: meta.credits_used, cache_hit: meta.cache_hit } }));
      return ok(
        c,
        { results },
        {
          requested: run.requested,
          processed: run.processed,
          found: run.items.filter((item) => item.data.found).length,
          credits_used: run.creditsUsed,
          credits_remaining: run.creditsRemaining,
          stopped_reason: run.stoppedReason,
        },
      );
    },
  );
