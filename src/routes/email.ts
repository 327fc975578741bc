import { Hono, type Context } from "hono";
import { z } from "zod";
import { browserCors, publishableFields, publishableKey } from "../auth/publishable-key";
import { assertSandboxValue } from "../auth/sandbox";
import type { WalkOptions } from "../engines/product";
import { assertWebhookUrl } from "../http/webhook-url";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { batchMeta, lookupMeta } from "../http/meta";
import { browserOk, browserSchema } from "../http/browser-answer";
import { describe } from "../http/openapi";
import { jsonBody, pathParams } from "../http/validation";
import { domainResultSchema, emailResultSchema } from "../products/email/schemas";
import { emailDomain } from "../products/email/domain-product";
import { email, isTestAddress } from "../products/email/product";
import { scheduleRecheck } from "../products/email/settle";
import type { AppEnv } from "../types";
import { LOOKUP_ERRORS, lookupKey, paidWalk } from "./paid-walk";

const lookupOptions = {
  refresh: z.boolean().nullish(),
  max_age: z.int().min(60).max(604_800).nullish(),
  timeout: z.int().min(2).max(60).nullish(),
};

const singleBody = z
  .object({
    email: z.string().max(254),
    callback_url: z.url().max(2048).nullish(),
    callback_secret: z.string().min(16).max(128).nullish(),
    ...lookupOptions,
  })
  .refine((b) => !b.callback_url || b.callback_secret, { path: ["callback_secret"], message: "Required with callback_url." });

const batchBody = z.object({ emails: z.array(z.string().max(254)).min(1).max(50), ...lookupOptions });

const publicBody = z.object({ ...publishableFields, email: z.string().max(254) });

const options = (body: { refresh?: boolean | null; max_age?: number | null; timeout?: number | null }, honorSuppressions: boolean): WalkOptions => ({
  refresh: body.refresh ?? false,
  maxAgeSeconds: body.max_age ?? null,
  honorSuppressions,
  extra: { timeout: body.timeout ?? null },
});

const batchItemMeta = z.object({ credits_used: z.int(), cache_hit: z.boolean(), suppressed: z.boolean(), refreshed: z.boolean(), fair_use_billed: z.boolean() });

/** `POST /email` adds whether the answer came from a refresh, a suppression or fair-use billing, and `settling` when a callback was asked for. */
const singleMeta = lookupMeta.extend({
  refreshed: z.boolean(),
  suppressed: z.boolean(),
  fair_use_billed: z.boolean(),
  settling: z.boolean().optional(),
});


async function single(c: Context<AppEnv>, address: string, body: Parameters<typeof options>[0]) {
  const run = await paidWalk(c, email, [address], options(body, false));
  const { data, meta } = run.items[0]!;
  return { data, meta: { ...meta, credits_remaining: run.creditsRemaining } };
}

export const emailRoutes = new Hono<AppEnv>()
  .post(
    "/email",
    describe({ tag: "Email", summary: "Verify one address", response: emailResultSchema, meta: singleMeta, errors: [...LOOKUP_ERRORS] }),
    lookupKey({ scope: "email", sandbox: true }),
    jsonBody(singleBody),
    async (c) => {
      const body = c.req.valid("json");
      if (body.callback_url) assertWebhookUrl(c.env, "callback_url", body.callback_url);
      assertSandboxValue(c, email.isSample(body.email));
      const { data, meta } = await single(c, body.email, body);
      const principal = c.var.principal;
      const settling = Boolean(body.callback_url && body.callback_secret && data.reason === "unverified" && principal?.kind === "secret");
      if (settling && principal?.kind === "secret") {
        await scheduleRecheck(c.env, {
          requestId: c.var.requestId,
          accountId: principal.accountId,
          keyId: principal.keyId,
          dailyCreditCap: principal.dailyCreditCap,
          email: body.email,
          callbackUrl: body.callback_url!,
          callbackSecret: body.callback_secret!,
          timeout: body.timeout ?? null,
        });
      }
      return ok(c, data, {
        credits_used: meta.credits_used,
        credits_remaining: meta.credits_remaining,
        cache_hit: meta.cache_hit,
        refreshed: meta.refreshed,
        suppressed: meta.suppressed,
        fair_use_billed: meta.fair_use_billed,
        ...(body.callback_url ? { settling } : {}),
      });
    },
  )
  .post(
    "/email/batch",
    describe({
      tag: "Email",
      summary: "Verify 1 to 50 addresses in order; counts as one request",
      response: z.object({ results: z.array(z.object({ index: z.int(), input: z.string(), data: emailResultSchema, meta: batchItemMeta })) }),
      meta: batchMeta,
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "email", sandbox: true }),
    jsonBody(batchBody),
    async (c) => {
      const body = c.req.valid("json");
      assertSandboxValue(c, body.emails.every(isTestAddress));
      const run = await paidWalk(c, email, body.emails, options(body, true));
      return ok(
        c,
        { results: run.items.map(({ test: _test, ...item }) => item) },
        {
          requested: run.requested,
          processed: run.processed,
          credits_used: run.creditsUsed,
          credits_remaining: run.creditsRemaining,
          stopped_reason: run.stoppedReason,
        },
      );
    },
  )
  .use("/email/public", browserCors())
  .post(
    "/email/public",
    describe({
      tag: "Email",
      summary: "Browser lookup with a publishable key; answers without meta",
      description: "Authenticated by `key` in the body and the `Origin` header; no bearer key.",
      response: browserSchema(emailResultSchema),
      meta: null,
      errors: [...LOOKUP_ERRORS],
    }),
    jsonBody(publicBody),
    publishableKey(),
    async (c) => {
      const { data } = await single(c, c.req.valid("json").email, {});
      return browserOk(c, data);
    },
  )
  .get(
    "/email/domain/:domain",
    describe({
      tag: "Email",
      summary: "Domain intelligence; 1 credit only when mx_found and fresh",
      response: domainResultSchema,
      meta: lookupMeta,
      errors: [...LOOKUP_ERRORS],
    }),
    lookupKey({ scope: "email", sandbox: true }),
    pathParams(z.object({ domain: z.string().max(254) })),
    async (c) => {
      const raw = c.req.valid("param").domain;
      assertSandboxValue(c, emailDomain.isSample(raw));
      const run = await paidWalk(c, emailDomain, [raw], options({}, false));
      const { data, meta } = run.items[0]!;
      // A resolver outage decides nothing (mx_found unknown) and bills nothing: the caller is told to retry rather
      // than handed booleans the spec promises but DNS never gave (docs/api-decisions.md).
      if (data.valid && data.mx_found === null) {
        throw new ApiError("SERVER_ERROR", "The DNS resolver did not answer, so nothing was decided or billed. Retry shortly.");
      }
      return ok(c, data, { credits_used: meta.credits_used, credits_remaining: run.creditsRemaining, cache_hit: meta.cache_hit });
    },
  );
