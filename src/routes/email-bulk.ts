import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { database } from "../db/client";
import { bulkJobs } from "../db/schema";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { createJob, jobView, requestHash } from "../jobs/bulk-engine";
import { emailBulk } from "../jobs/email-bulk";
import type { AppEnv } from "../types";
import { bulkRunRoutes, payer, redeliverRoute } from "./bulk";
import { assertWebhookUrl } from "./webhooks";

const createBody = z.object({
  emails: z.array(z.string().max(254)).min(1).max(100_000),
  webhook_url: z.url().max(2048).nullish(),
  refresh: z.boolean().nullish(),
  max_age: z.int().min(60).max(604_800).nullish(),
  timeout: z.int().min(2).max(60).nullish(),
});

const idempotencyKey = (c: Context<AppEnv>) => {
  const key = c.req.header("Idempotency-Key");
  if (key !== undefined && (key.length < 1 || key.length > 255)) throw new ApiError("VALIDATION_FAILED", "Idempotency-Key must be 1 to 255 characters.", { errors: { "Idempotency-Key": ["1 to 255 characters."] } });
  return key ?? null;
};

/** The first answer for this Idempotency-Key if the request is the same one again; 409 if the key was used otherwise. */
async function replay(c: Context<AppEnv>, key: string, hash: string) {
  const existing = await database(c.env)
    .select()
    .from(bulkJobs)
    .where(and(eq(bulkJobs.accountId, payer(c).accountId), eq(bulkJobs.product, "email"), eq(bulkJobs.idempotencyKey, key)))
    .get();
  if (!existing) return null;
  if (existing.requestHash !== hash) {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used with different addresses or webhook URL.");
  }
  return ok(c, JSON.parse(existing.createResponse ?? "{}") as unknown, {}, 202);
}

export const emailBulkRoutes = new Hono<AppEnv>()
  .post(
    "/email/bulk",
    describe({
      tag: "Bulk",
      summary: "Start a bulk email run (up to 100,000 addresses); the webhook secret is returned once",
      status: 202,
      response: z.object({ job: z.object({ id: z.int() }), webhook_secret: z.string().nullable() }),
      errors: ["IDEMPOTENCY_KEY_REUSED"],
    }),
    secretKey({ scope: "email" }),
    jsonBody(createBody),
    async (c) => {
      const body = c.req.valid("json");
      if (body.webhook_url) assertWebhookUrl(c.env, "webhook_url", body.webhook_url);
      const key = idempotencyKey(c);
      const webhookUrl = body.webhook_url ?? null;
      if (key) {
        const replayed = await replay(c, key, await requestHash(body.emails, webhookUrl));
        if (replayed) return replayed;
      }
      const principal = payer(c);
      let created;
      try {
        created = await createJob(c.env, emailBulk, {
          accountId: principal.accountId,
          keyId: principal.keyId,
          inputs: body.emails,
          options: { refresh: body.refresh ?? null, max_age: body.max_age ?? null, timeout: body.timeout ?? null },
          webhookUrl,
          idempotencyKey: key,
        });
      } catch (err) {
        // Two requests raced with one Idempotency-Key: the loser answers like a replay.
        const replayed = key ? await replay(c, key, await requestHash(body.emails, webhookUrl)) : null;
        if (replayed) return replayed;
        throw err;
      }
      const data = { job: jobView(created.row), webhook_secret: created.webhookSecret };
      await database(c.env).update(bulkJobs).set({ createResponse: JSON.stringify(data) }).where(eq(bulkJobs.id, created.row.id));
      return ok(c, data, {}, 202);
    },
  )
  .route("/", bulkRunRoutes(emailBulk, "email"))
  .route("/", redeliverRoute(emailBulk, "email"));
