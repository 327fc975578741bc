import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import { publishableFields, publishableKey } from "../auth/publishable-key";
import { assertSandboxValue } from "../auth/sandbox";
import { secretKey } from "../auth/secret-key";
import { creditsOf, withCredits } from "../billing/credits";
import { database } from "../db/client";
import { ok } from "../http/envelope";
import { describe } from "../http/openapi";
import { jsonBody, pathParams } from "../http/validation";
import { domainIntelligence, invalidDomain, normalizeDomain } from "../products/email/domain";
import { DEFAULT_TIMEOUT_SECONDS, emailConfig, runEmailLookups, type EmailOptions } from "../products/email/service";
import { scheduleRecheck } from "../products/email/settle";
import { recall, remember } from "../products/email/store";
import { cannedAnswer, cannedDomain } from "../products/email/test-addresses";
import { extractAddress } from "../products/email/extract";
import { parseAddress } from "../products/email/syntax";
import type { AppEnv } from "../types";
import { assertWebhookUrl } from "./webhooks";
import { emailResultSchema, domainResultSchema } from "./email-schemas";

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

const options = (body: { refresh?: boolean | null; max_age?: number | null; timeout?: number | null }, honorSuppressions: boolean): EmailOptions => ({
  refresh: body.refresh ?? false,
  maxAgeSeconds: body.max_age ?? null,
  timeoutSeconds: body.timeout ?? DEFAULT_TIMEOUT_SECONDS,
  honorSuppressions,
});

const LOOKUP_ERRORS = ["INSUFFICIENT_CREDITS", "KEY_SPEND_CAP_REACHED"] as const;

async function single(c: Context<AppEnv>, email: string, body: Parameters<typeof options>[0]) {
  const run = await runEmailLookups(c, [email], options(body, false));
  const { data, meta } = run.items[0]!;
  return { data, meta: { ...meta, credits_remaining: run.creditsRemaining } };
}

export const emailRoutes = new Hono<AppEnv>()
  .post(
    "/email",
    describe({ tag: "Email", summary: "Verify one address", response: emailResultSchema, errors: [...LOOKUP_ERRORS] }),
    secretKey({ scope: "email", sandbox: true }),
    jsonBody(singleBody),
    async (c) => {
      const body = c.req.valid("json");
      if (body.callback_url) assertWebhookUrl(c.env, "callback_url", body.callback_url);
      assertSandboxValue(c, isTestAddress(body.email));
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
          timeoutSeconds: body.timeout ?? DEFAULT_TIMEOUT_SECONDS,
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
      response: z.object({ results: z.array(z.object({ index: z.int(), input: z.string(), data: emailResultSchema, meta: z.object({}) })) }),
      errors: [...LOOKUP_ERRORS],
    }),
    secretKey({ scope: "email", sandbox: true }),
    jsonBody(batchBody),
    async (c) => {
      const body = c.req.valid("json");
      assertSandboxValue(c, body.emails.every(isTestAddress));
      const run = await runEmailLookups(c, body.emails, options(body, true));
      return ok(
        c,
        { results: run.items },
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
  .use("/email/public", cors({ origin: (origin) => origin, allowMethods: ["POST"], allowHeaders: ["Content-Type"], maxAge: 600 }))
  .post(
    "/email/public",
    describe({
      tag: "Email",
      summary: "Browser lookup with a publishable key; answers without meta",
      description: "Authenticated by `key` in the body and the `Origin` header; no bearer key.",
      response: emailResultSchema,
      errors: [...LOOKUP_ERRORS],
    }),
    jsonBody(publicBody),
    publishableKey(),
    async (c) => {
      const { data } = await single(c, c.req.valid("json").email, {});
      return c.json({ success: true as const, data });
    },
  )
  .get(
    "/email/domain/:domain",
    describe({
      tag: "Email",
      summary: "Domain intelligence; 1 credit only when mx_found and fresh",
      response: domainResultSchema,
      errors: [...LOOKUP_ERRORS],
    }),
    secretKey({ scope: "email", sandbox: true }),
    pathParams(z.object({ domain: z.string().max(254) })),
    async (c) => {
      const raw = c.req.valid("param").domain;
      const domain = normalizeDomain(raw);
      const canned = domain ? cannedDomain(domain) : null;
      assertSandboxValue(c, canned !== null);
      if (!domain || canned) return ok(c, canned ?? invalidDomain(raw), { credits_used: 0, credits_remaining: await remainingCredits(c), cache_hit: false });
      return domainLookup(c, domain);
    },
  );

/** The sandbox answers only the six test addresses (plus-tags allowed). */
function isTestAddress(input: string): boolean {
  const parsed = parseAddress(extractAddress(input));
  return parsed !== null && cannedAnswer(parsed.local, parsed.domain, input) !== null;
}

async function remainingCredits(c: Context<AppEnv>): Promise<number> {
  const principal = c.var.principal;
  if (!principal || principal.kind === "sandbox") return 0;
  return (await creditsOf(c.env, principal.accountId).snapshot()).available;
}

/** Domain answers share the account's repeat window with addresses, keyed `@domain`. */
async function domainLookup(c: Context<AppEnv>, domain: string) {
  const db = database(c.env);
  const principal = c.var.principal;
  const accountId = principal && principal.kind !== "sandbox" ? principal.accountId : null;
  const key = `@${domain}`;
  const now = Date.now();
  if (accountId) {
    const stored = await recall(db, accountId, [key], [], false, now);
    const repeat = stored.repeats.get(key);
    if (repeat) return ok(c, repeat.result, { credits_used: 0, credits_remaining: await remainingCredits(c), cache_hit: true });
  }
  const config = emailConfig(c.env).dns;
  const { result, charged, remaining } = await withCredits(c, { amount: 1 }, async () => {
    const answer = await domainIntelligence(config, db, domain, now);
    return { result: answer, credits: answer.mx_found ? 1 : 0 };
  });
  if (accountId && result.mx_found !== null) {
    await remember(db, { accountId, requestId: c.var.requestId, now, answers: [{ key, result }], mailboxes: new Map(), suppress: [], unsuppress: [], history: [] });
  }
  return ok(c, result, { credits_used: charged, credits_remaining: remaining, cache_hit: false });
}
