import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import { publishableFields, publishableKey } from "../auth/publishable-key";
import { assertSandboxValue } from "../auth/sandbox";
import type { Product } from "../engines/product";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { batchMeta, lookupMeta, suppressibleLookupMeta } from "../http/meta";
import { browserOk, browserSchema } from "../http/browser-answer";
import { describe } from "../http/openapi";
import { jsonBody, pathParams } from "../http/validation";
import type { PhoneItem } from "../products/phone/numbering";
import { phone, phoneBlocks } from "../products/phone/product";
import { blockResultSchema, phoneBatchRequest, phoneItem, phoneObject, phoneRequest, phoneResultSchema } from "../products/phone/schemas";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const publicBody = z.object({ ...publishableFields, ...phoneObject.shape });
const blockParams = z.object({
  country: z.string().regex(/^[A-Za-z]{2}$/, "Two letters (ISO 3166-1 alpha-2)."),
  prefix: z.string().regex(/^\d{1,15}$/, "1 to 15 digits of the national number."),
});


/** A single lookup never consults the suppression list; a batch does (docs/phone.md, "Requests"). */
const options = (honorSuppressions: boolean, network = false) => ({ refresh: false, maxAgeSeconds: null, honorSuppressions, extra: { network } });

const lookup = <In, Out>(c: Context<AppEnv>, product: Product<In, Out>, inputs: In[], honorSuppressions: boolean, network = false) => paidWalk(c, product, inputs, options(honorSuppressions, network));

async function single(c: Context<AppEnv>, item: PhoneItem, network = false) {
  const run = await lookup(c, phone, [item], false, network);
  const { data, meta } = run.items[0]!;
  return { data, meta: { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit, suppressed: meta.suppressed } };
}

/** Phone numbers from the numbering plan and prefix tables, never a live network check: docs/phone.md. */
export const phoneRoutes = new Hono<AppEnv>()
  .post(
    "/phone",
    describe({ tag: "Phone", summary: "Look up one number; 1 credit for a fresh valid number", response: phoneResultSchema, meta: suppressibleLookupMeta, errors: [...LOOKUP_ERRORS] }),
    lookupKey({ scope: "phone", sandbox: true }),
    jsonBody(phoneRequest),
    async (c) => {
      const { network, ...item } = c.req.valid("json");
      assertSandboxValue(c, phone.isSample(item));
      const { data, meta } = await single(c, item, network);
      return ok(c, data, meta);
    },
  )
  .post(
    "/phone/batch",
    describe({
      tag: "Phone",
      summary: "Look up 1 to 1,000 numbers in order; counts as one request",
      description: "Each item is a string or `{phone, country}`. Walks in order and stops where credits or the key's daily cap run out.",
      response: z.object({
        results: z.array(z.object({ index: z.int(), input: phoneItem, data: phoneResultSchema, meta: z.object({ credits_used: z.int(), cache_hit: z.boolean(), suppressed: z.boolean() }) })),
      }),
      meta: batchMeta,
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "phone", sandbox: true }),
    jsonBody(phoneBatchRequest),
    async (c) => {
      const { phones, network } = c.req.valid("json");
      assertSandboxValue(c, phones.every((item) => phone.isSample(item)));
      const run = await lookup(c, phone, phones, true, network);
      const results = run.items.map(({ index, input, data, meta }) => ({ index, input, data, meta: { credits_used: meta.credits_used, cache_hit: meta.cache_hit, suppressed: meta.suppressed } }));
      return ok(c, { results }, { requested: run.requested, processed: run.processed, credits_used: run.creditsUsed, credits_remaining: run.creditsRemaining, stopped_reason: run.stoppedReason });
    },
  )
  .use("/phone/public", cors({ origin: (origin) => origin, allowMethods: ["POST"], allowHeaders: ["Content-Type"], maxAge: 600 }))
  .post(
    "/phone/public",
    describe({
      tag: "Phone",
      summary: "Browser lookup with a publishable key; answers without meta, never a live network check",
      description: "Authenticated by `key` in the body and the `Origin` header; no bearer key.",
      response: browserSchema(phoneResultSchema),
      meta: null,
      errors: [...LOOKUP_ERRORS],
    }),
    jsonBody(publicBody),
    publishableKey(),
    async (c) => {
      const { phone: number, country } = c.req.valid("json");
      const { data } = await single(c, { phone: number, country });
      return browserOk(c, data);
    },
  )
  .get(
    "/phone/block/:country/:prefix",
    describe({
      tag: "Phone",
      summary: "The numbering-plan blocks under a national prefix; 1 credit when found",
      response: blockResultSchema,
      meta: lookupMeta,
      errors: [...LOOKUP_ERRORS, "PHONE_BLOCK_NOT_FOUND"],
    }),
    lookupKey({ scope: "phone" }),
    pathParams(blockParams),
    async (c) => {
      const query = c.req.valid("param");
      const run = await lookup(c, phoneBlocks, [{ country: query.country.toUpperCase(), prefix: query.prefix }], false);
      const { data, meta } = run.items[0]!;
      if (!data.blocks.length) throw new ApiError("PHONE_BLOCK_NOT_FOUND", `No numbering-plan block of ${data.country} starts with ${data.prefix}.`);
      return ok(c, data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit });
    },
  );
