import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import { deliveryConfig } from "../engines/webhooks/config";
import { assertWebhookUrl } from "../http/webhook-url";
import type { BulkShape } from "../engines/product";
import { bulkEventProduct, EVENTS, sampleBody } from "../engines/webhooks/events";
import { mintSecret } from "../engines/webhooks/secret";
import { ok } from "../http/envelope";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { enforceLimit } from "../limits/limiter";
import { deliver } from "../platform/webhooks";
import type { AppEnv } from "../types";

type SampleRun = Pick<BulkShape<unknown>, "sampleCounts" | "sampleTotal">;

/** The sample run of a finished event for a product without bulk counters of its own: email's. */
const FALLBACK_SAMPLE: SampleRun = { sampleCounts: { deliverable: 1, risky: 0, undeliverable: 1 } };

const testBody = z.object({ url: z.url().max(2048), event: z.enum(EVENTS) });

const keyId = (c: Context<AppEnv>) => (c.var.principal?.kind === "secret" ? c.var.principal.keyId : "");

/**
 * `POST /webhooks/test`. `sampleFor(product)` gives the sample run a product's `bulk_<product>_job.finished` body
 * carries (its bulk shape; null when the product has none yet); it is a parameter so this route needs no registry.
 */
export function webhookRoutes(sampleFor: (product: string) => SampleRun | null) {
  return new Hono<AppEnv>().post(
    "/webhooks/test",
    describe({
      tag: "Webhooks",
      summary: "Send a signed test delivery; 10 a minute per key, free",
      response: z.object({
        delivered: z.boolean(),
        status_code: z.int(),
        detail: z.string(),
        secret: z.string(),
        signature: z.string(),
        timestamped_signature: z.string(),
        timestamp: z.int(),
        body: z.string(),
      }),
      errors: ["RATE_LIMITED"],
    }),
    secretKey(),
    jsonBody(testBody),
    async (c) => {
      const { url, event } = c.req.valid("json");
      assertWebhookUrl(c.env, "url", url);
      await enforceLimit(c.env, "testWebhookKey", keyId(c));
      // Minted per call and stored nowhere: a test delivery has no owner to keep it for.
      const secret = mintSecret();
      const product = bulkEventProduct(event);
      const sample = product === null ? { sampleCounts: {} } : (sampleFor(product) ?? FALLBACK_SAMPLE);
      const body = sampleBody(event, sample.sampleCounts, sample.sampleTotal);
      // The caller waits for the outcome, so this is the one delivery made inside a request rather than via the outbox.
      const result = await deliver(url, body, secret, deliveryConfig(c.env));
      const { signature } = result;
      return ok(c, {
        delivered: result.delivered,
        status_code: result.statusCode,
        detail: result.detail,
        secret,
        signature: signature.legacy,
        timestamped_signature: signature.timestamped,
        timestamp: signature.timestamp,
        body,
      });
    },
  );
}
