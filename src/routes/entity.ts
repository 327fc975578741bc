import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { ok } from "../http/envelope";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { lookupEntities, type EntityItem } from "../products/entity/lookup";
import { ENTITY_REASONS } from "../products/entity/result";
import type { AppEnv } from "../types";

const objectItem = z
  .object({
    identifier: z.string().max(64),
    type: z.enum(["lei", "company_number"]).nullish().describe("Default `lei`."),
    country: z.string().max(2).nullish().describe("Two letters; required when type is `company_number`."),
  })
  .refine((item) => item.type !== "company_number" || Boolean(item.country?.trim()), {
    path: ["country"],
    message: "Required when type is company_number.",
  });

const leiItem = z.string().max(64).describe("An LEI.");

const unionItem = z.union([leiItem, objectItem]);
const { $schema: _ignored, ...unionItemJsonSchema } = z.toJSONSchema(unionItem, { io: "input" }) as Record<string, unknown>;

/**
 * `unionItem`, validated by the item's own shape so that errors point inside it (`identifiers.3.country`) rather than
 * at a bare "invalid union" on `identifiers.3`; documented as the union.
 */
const item = z
  .unknown()
  .transform((value, ctx): z.output<typeof unionItem> => {
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    if (!isObject && typeof value !== "string") {
      ctx.addIssue({ code: "custom", message: "Must be an LEI string or an {identifier, type, country} object." });
      return z.NEVER;
    }
    const parsed = (isObject ? objectItem : leiItem).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  })
  .meta(unionItemJsonSchema);

const batchBody = z.object({ identifiers: z.array(item).min(1).max(500) });

export const entityResultSchema = z.object({
  identifier: z.string(),
  identifier_type: z.enum(["lei", "company_number"]),
  found: z.boolean(),
  reason: z.enum(ENTITY_REASONS as [string, ...string[]]).nullable(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  status_detail: z.string().nullable(),
  country: z.string().nullable(),
  checksum_valid: z.boolean().nullable(),
  registration_status: z.string().nullable(),
  flags: z.array(z.enum(["dissolved_in_national_register"])),
});

const LOOKUP_ERRORS = ["INSUFFICIENT_CREDITS", "KEY_SPEND_CAP_REACHED"] as const;

async function lookup(c: Context<AppEnv>, items: EntityItem[]) {
  const principal = c.var.principal;
  const payer = principal && principal.kind !== "sandbox" ? { accountId: principal.accountId, keyId: principal.keyId, dailyCreditCap: principal.dailyCreditCap } : null;
  const run = await lookupEntities(c.env, payer, items, { requestId: c.var.requestId });
  c.set("creditsUsed", (c.var.creditsUsed ?? 0) + run.creditsUsed);
  return run;
}

/** Company identifiers (LEI, national company numbers) answered from registers synced locally: docs/entity.md. */
export const entityRoutes = new Hono<AppEnv>()
  .post(
    "/entity",
    describe({
      tag: "Entity",
      summary: "Look up one LEI or company number; 1 credit when a register carries it and it is not a 7-day repeat",
      response: entityResultSchema,
      errors: [...LOOKUP_ERRORS],
    }),
    secretKey({ scope: "entity" }),
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
      errors: [...LOOKUP_ERRORS],
    }),
    secretKey({ scope: "entity" }),
    jsonBody(batchBody),
    async (c) => {
      const run = await lookup(c, c.req.valid("json").identifiers);
      return ok(
        c,
        { results: run.items },
        {
          requested: run.requested,
          processed: run.processed,
          found: run.found,
          credits_used: run.creditsUsed,
          credits_remaining: run.creditsRemaining,
          stopped_reason: run.stoppedReason,
        },
      );
    },
  );
