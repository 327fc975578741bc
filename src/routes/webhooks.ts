import { Hono, type Context } from "hono";
import { z } from "zod";
import { randomToken } from "../auth/keys";
import { secretKey } from "../auth/secret-key";
import { ok } from "../http/envelope";
import { validationFailed } from "../http/errors";
import { describe } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { enforceLimit } from "../limits/limiter";
import { deliver, type DeliveryConfig } from "../platform/webhooks";
import type { AppEnv } from "../types";

export const EVENTS = [
  "bulk_email_job.finished",
  "bulk_phone_job.finished",
  "bulk_ip_job.finished",
  "bulk_address_job.finished",
  "bulk_consistency_job.finished",
  "email.settled",
  "email_monitor.run",
  "phone_monitor.run",
  "ip_monitor.run",
  "address_monitor.run",
  "entity_monitor.run",
] as const;

export type EventName = (typeof EVENTS)[number];

/** Delivery settings from vars; WEBHOOKS_ALLOW_LOOPBACK is a development switch, off in production. */
export const deliveryConfig = (env: Env): DeliveryConfig => ({
  dohUrl: env.DOH_URL,
  allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK === "true",
  timeoutMs: Number(env.WEBHOOK_TIMEOUT_MS) || 10_000,
  retryBaseMs: Number(env.WEBHOOK_RETRY_BASE_MS) || 5_000,
});

/** https only; plain http only to loopback and only with the development switch on. */
export function assertWebhookUrl(env: Env, field: string, url: string) {
  const parsed = new URL(url);
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname);
  const allowed = parsed.protocol === "https:" || (env.WEBHOOKS_ALLOW_LOOPBACK === "true" && parsed.protocol === "http:" && loopback);
  if (!allowed) throw validationFailed({ [field]: ["Must be an https URL."] });
}

/** The fixed sample payload of each event for test deliveries: nothing from the request is copied into it. */
function sampleBody(event: EventName): string {
  const at = "2026-01-01T00:00:00.000Z";
  if (event.startsWith("bulk_")) {
    const job = { id: 1, status: "completed", total: 2, processed: 2, deliverable: 1, risky: 0, undeliverable: 1, credits_used: 1, stopped_reason: null, finished_at: at };
    return JSON.stringify({ test: true, event, job });
  }
  if (event === "email.settled") {
    const data = { email: "deliverable@service.test", deliverable: "deliverable", reason: null };
    return JSON.stringify({ test: true, event, request_id: "req_test", settled: true, attempt: 1, data, meta: { credits_used: 0, credits_remaining: 0, cache_hit: false, fair_use_billed: false } });
  }
  const monitor = { id: 1, name: "Test monitor", cadence: "weekly", last_run_at: at, next_run_at: "2026-01-08T00:00:00.000Z" };
  return JSON.stringify({ test: true, event, monitor, summary: { checked: 1, changed: 0 }, changes: [], ...(event === "phone_monitor.run" ? { flags: {} } : {}) });
}

const testBody = z.object({ url: z.url().max(2048), event: z.enum(EVENTS) });

const keyId = (c: Context<AppEnv>) => (c.var.principal?.kind === "secret" ? c.var.principal.keyId : "");

export const webhookRoutes = new Hono<AppEnv>().post(
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
    const secret = `whsec_${randomToken(32)}`;
    const body = sampleBody(event);
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
