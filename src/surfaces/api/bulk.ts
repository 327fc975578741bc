import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../../auth/secret-key";
import type { Product } from "../../engines/product";
import { ApiError } from "../../http/errors";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { BODY_BYTES } from "../../http/body";
import { jsonBody } from "../../http/validation";
import type { AppEnv } from "../../types";
import { createBody, startBulk } from "../bulk-acts";
import { bulkRunRoutes, jobSchema } from "./bulk-runs";
import { actOf, answerOf } from "./rest-act";

const idempotencyKey = (c: Context<AppEnv>) => {
  const key = c.req.header("Idempotency-Key");
  if (key !== undefined && (key.length < 1 || key.length > 255))
    throw new ApiError("VALIDATION_FAILED", "Idempotency-Key must be 1 to 255 characters.", {
      errors: { "Idempotency-Key": ["1 to 255 characters."] },
    });
  return key ?? null;
};

/** Every bulk route of one product: create (Idempotency-Key), list, poll, cancel, resume, results and redelivery. */
export function bulkRoutes(product: Product) {
  const body = createBody(product);
  return new Hono<AppEnv>()
    .post(
      `/${product.name}/bulk`,
      describe({
        operationId: productOperationId("start", product.name, "BulkRun"),
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
        const body = c.req.valid("json") as Record<string, unknown>;
        return answerOf(c, await startBulk(actOf(c), product, { body, idempotencyKey: idempotencyKey(c) }), 202);
      },
    )
    .route("/", bulkRunRoutes(product));
}
