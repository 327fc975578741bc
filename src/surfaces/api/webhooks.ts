import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../../auth/secret-key";
import { deliveryConfig } from "../../engines/webhooks/config";
import { assertWebhookUrl } from "../../http/webhook-url";
import { eventNames } from "../../engines/webhooks/events";
import { registeredProducts } from "../../products/registry";
import { sampleBody, type SampleProducts } from "../../engines/webhooks/samples";
import { mintSecret } from "../../engines/webhooks/secret";
import { ok } from "../../http/envelope";
import { describe } from "../../http/openapi";
import { jsonBody } from "../../http/validation";
import { admitRequest } from "../../limits/admit";
import { limitHit } from "../../limits/admission";
import { deliver, DELIVERY_ID_HEADER } from "../../platform/webhooks";
import type { AppEnv } from "../../types";

/** The events of the registered products (the registry is the one list of products; engines are handed it). */
const EVENTS = eventNames(registeredProducts()) as [string, ...string[]];
const testBody = z.object({ url: z.url().max(2048), event: z.enum(EVENTS) });

const keyId = (c: Context<AppEnv>) => (c.var.principal?.kind === "secret" ? c.var.principal.keyId : "");

/**
 * `POST /webhooks/test`. The body is built like the event's real delivery (engines/webhooks/samples.ts); the product
 * registry is passed in so this route needs none.
 */
export function webhookRoutes(products: SampleProducts) {
  return new Hono<AppEnv>().post(
    "/webhooks/test",
    describe({
      operationId: "sendTestWebhook",
      tag: "Webhooks",
      summary: "Send a signed test delivery; 10 a minute per key, free",
      description:
        'Posts a fixed sample body of the event (starting with `"test":true`) to `url`, signed with a secret minted ' +
        "for this call (`X-Service-Signature-V2`, and `X-Service-Signature` until 1 March 2027), with a " +
        "`Webhook-Delivery-Id` of the form `whd_test_...`, and answers the outcome, the secret, the signatures " +
        "and the body, so a receiver can be checked end to end. Up to 3 attempts. Free.",
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
    secretKey({ admitOnFirstCall: true }),
    jsonBody(testBody),
    async (c) => {
      const { url, event } = c.req.valid("json");
      assertWebhookUrl(c.env, "url", url);
      await admitRequest(c, limitHit("testWebhookKey", keyId(c)));
      // Minted per call and stored nowhere: a test delivery has no owner to keep it for.
      const secret = mintSecret();
      const body = sampleBody(event, products);
      // The caller waits for the outcome, so this is the one delivery made inside a request rather than via the outbox.
      const headers = { [DELIVERY_ID_HEADER]: `whd_test_${crypto.randomUUID()}` };
      const result = await deliver({ url, body, secret, headers }, deliveryConfig(c.env));
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
