import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../auth/principal";
import { secretKey } from "../auth/secret-key";
import { isRefusal } from "../engines/bulk/actions";
import { startRun } from "../engines/bulk/start";
import type { Product } from "../engines/product";
import { assertWebhookUrl } from "../http/webhook-url";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { describe } from "../http/openapi";
import { BODY_BYTES } from "../http/body";
import { jsonBody } from "../http/validation";
import type { AppEnv } from "../types";
import { bulkError, bulkRunRoutes, jobSchema } from "./bulk-runs";

export const MAX_BULK_ROWS = 100_000;

const idempotencyKey = (c: Context<AppEnv>) => {
  const key = c.req.header("Idempotency-Key");
  if (key !== undefined && (key.length < 1 || key.length > 255))
    throw new ApiError("VALIDATION_FAILED", "Idempotency-Key must be 1 to 255 characters.", {
      errors: { "Idempotency-Key": ["1 to 255 characters."] },
    });
  return key ?? null;
};

/**
 * `POST /{product}/bulk`: the list under the product's own field (`emails`), shared options, then the product's own.
 */
export function createBody(product: Product) {
  const shape = product.bulk!;
  return z.object({
    [shape.field]: z
      .array(shape.rows?.schema ?? product.input)
      .min(1)
      .max(MAX_BULK_ROWS),
    webhook_url: z.url().max(2048).nullish(),
    refresh: z.boolean().nullish(),
    max_age: z.int().min(60).max(604_800).nullish(),
    ...(shape.options ?? {}),
  });
}

/** Every bulk route of one product: create (Idempotency-Key), list, poll, cancel, resume, results and redelivery. */
export function bulkRoutes(product: Product) {
  const shape = product.bulk!;
  const body = createBody(product);
  return new Hono<AppEnv>()
    .post(
      `/${product.name}/bulk`,
      describe({
        tag: "Bulk",
        summary: `Start a bulk ${product.name} run (up to 100,000 values); the webhook secret is returned once`,
        description:
          `Stores the list (duplicates collapsed by the product's key) and queues the run; answers 202 ` +
          `with the job before any value is looked up. Values are billed as they are answered, like a batch (test ` +
          `values, repeats and suppressed values free). \`Idempotency-Key\` replays the first answer for the same ` +
          `list. Poll \`GET /${product.name}/bulk/{jobId}\` or give \`webhook_url\`: ` +
          `\`bulk_${product.name}_job.finished\` is posted there, signed with the \`webhook_secret\` returned ` +
          `only here.`,
        status: 202,
        response: z.object({ job: jobSchema(product), webhook_secret: z.string().nullable() }),
        errors: ["IDEMPOTENCY_KEY_REUSED"],
      }),
      secretKey({ scope: product.scope }),
      jsonBody(body, BODY_BYTES.bulk),
      async (c) => {
        const {
          [shape.field]: inputs,
          webhook_url,
          ...options
        } = c.req.valid("json") as Record<string, unknown> & { webhook_url?: string | null };
        const webhookUrl = webhook_url ?? null;
        if (webhookUrl) assertWebhookUrl(c.env, "webhook_url", webhookUrl);
        const principal = secretPrincipal(c);
        const started = await startRun(c.env, product, {
          accountId: principal.accountId,
          keyId: principal.keyId,
          list: inputs as unknown[],
          options,
          webhookUrl,
          idempotencyKey: idempotencyKey(c),
        });
        if (isRefusal(started)) throw bulkError(started);
        return ok(c, started, {}, 202);
      },
    )
    .route("/", bulkRunRoutes(product));
}
