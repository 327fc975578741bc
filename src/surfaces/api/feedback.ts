import { Hono } from "hono";
import { z } from "zod";
import { accountForFeedbackKey } from "../../auth/feedback-key";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { database } from "../../db/client";
import type { FeedbackEvent } from "../../engines/lists/feedback-shape";
import { feedbackSummary, receiveFeedback } from "../../engines/lists/feedback";
import type { Product } from "../../engines/product";
import { ok } from "../../http/envelope";
import { ApiError, validationFailed } from "../../http/errors";
import { BODY_BYTES, readBody } from "../../http/body";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { dateOrTimestamp } from "../../http/time";
import { jsonBody, pathParams, queryParams } from "../../http/validation";
import type { AppEnv } from "../../types";

/** Posted events per call. */
export const FEEDBACK_EVENTS_MAX = 1000;
const SUMMARY_DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

const receivedSchema = z.object({ recorded: z.int(), suppressed: z.int(), invalid: z.array(z.int()) });

/** One posted event: the value, a normalized outcome, its kind where the product has kinds, when, and a note. */
function eventSchema(product: Product) {
  const shape = product.feedback!;
  const kinds = shape.kinds;
  const allKinds = [...new Set(Object.values(kinds?.of ?? {}).flatMap((list) => [...(list ?? [])]))];
  const base = z.object({
    [shape.valueField]: product.input,
    outcome: z.enum(shape.outcomes),
    occurred_at: z.iso.datetime({ offset: true }).optional(),
    detail: z.string().max(500).optional(),
    ...(kinds && allKinds.length ? { [kinds.field]: z.enum(allKinds as [string, ...string[]]).optional() } : {}),
  });
  return base.superRefine((event, ctx) => {
    const kind = kinds ? (event as Record<string, unknown>)[kinds.field] : undefined;
    if (kind !== undefined && !kinds?.of[event.outcome as string]?.includes(kind as string)) {
      ctx.addIssue({
        code: "custom",
        path: [kinds!.field],
        message: `Only for outcomes that have kinds: ${Object.keys(kinds!.of).join(", ")}.`,
      });
    }
  });
}

/** A posted event in the engine's shape; an outcome with kinds and none given takes its first kind. */
function normalized<In>(product: Product<In>, event: Record<string, unknown>): FeedbackEvent<In> {
  const shape = product.feedback!;
  const kinds = shape.kinds;
  const outcome = event.outcome as string;
  const kind = kinds?.of[outcome] ? ((event[kinds.field] as string | undefined) ?? kinds.of[outcome]![0]) : null;
  const occurredAt = typeof event.occurred_at === "string" ? Date.parse(event.occurred_at) : null;
  return {
    value: event[shape.valueField] as In,
    outcome,
    kind,
    occurredAt,
    detail: event.detail ? { note: event.detail } : {},
  };
}

/**
 * `POST /{product}/feedback` (the account's own outcomes, secret key), `GET /{product}/feedback/summary` and the
 * senders' inbound webhooks `POST /{product}/feedback/{provider}/{fb_key}` (when the product names senders), for a
 * product that declares feedback.
 * The inbound route has no bearer key: the `fb_` key in the URL is the credential (spec, Authentication 7), and the
 * account's email verification does not apply to it. A product with no senders gets the first two only.
 */
export function feedbackRoutes(product: Product) {
  const shape = product.feedback!;
  const base = `/${product.name}/feedback`;
  const auth = secretKey({ scope: product.scope });
  const tag = "Feedback";
  const body = z.object({ events: z.array(eventSchema(product)).min(1).max(FEEDBACK_EVENTS_MAX) });
  // Every outcome has its count in each row (zero included), so the row lists them instead of an open record.
  const facetRow = z.object({
    [shape.facet]: z.string(),
    total: z.int(),
    ...Object.fromEntries(shape.outcomes.map((o) => [o, z.int()])),
  });
  const summarySchema = z.object({
    since: z.iso.datetime(),
    until: z.iso.datetime(),
    total: z.int(),
    outcomes: z.record(z.string(), z.int()),
    kinds: z.record(z.string(), z.record(z.string(), z.int())),
    [`by_${shape.facet}`]: z.array(facetRow),
    ignored: z.int(),
  });
  const providers = Object.keys(shape.providers);
  const routes = new Hono<AppEnv>()
    .post(
      base,
      describe({
        operationId: productOperationId("report", product.name, "Feedback"),
        tag,
        summary: `Report delivery outcomes of ${product.name} values (normalized); free`,
        description:
          "Reports what happened when the account used values it looked up (delivered, bounced, complained, ...). " +
          "Feedback is counted in the summary and feeds the product's delivery-feedback dataset; it never changes " +
          "a past answer or a price. Free.",
        response: receivedSchema,
      }),
      auth,
      jsonBody(body),
      async (c) => {
        const events = c.req.valid("json").events.map((e) => normalized(product, e as Record<string, unknown>));
        const received = await receiveFeedback(c.env, product, {
          accountId: secretPrincipal(c).accountId,
          source: "api",
          events,
          ignored: 0,
          now: Date.now(),
        });
        return ok(c, received);
      },
    )
    .get(
      `${base}/summary`,
      describe({
        operationId: productOperationId("get", product.name, "FeedbackSummary"),
        tag,
        summary:
          `Feedback counts by outcome and by ${shape.facet} over a window (default the last ` +
          `${SUMMARY_DEFAULT_DAYS} days)`,
        description: "Counts of the account's feedback by outcome, and by the answer it followed, over a window. Free.",
        response: summarySchema,
      }),
      auth,
      queryParams(z.object({ since: dateOrTimestamp(false).optional(), until: dateOrTimestamp(true).optional() })),
      async (c) => {
        const query = c.req.valid("query");
        const until = query.until ?? Date.now() + 1;
        const since = query.since ?? until - SUMMARY_DEFAULT_DAYS * DAY_MS;
        if (since >= until) throw validationFailed({ since: ["Must be before until."] });
        const s = await feedbackSummary(database(c.env), product, {
          accountId: secretPrincipal(c).accountId,
          since,
          until,
        });
        const facets = s.facets.map(({ facet, total, counts }) => ({ [shape.facet]: facet, total, ...counts }));
        const window = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };
        return ok(c, {
          ...window,
          total: s.total,
          outcomes: s.outcomes,
          kinds: s.kinds,
          [`by_${shape.facet}`]: facets,
          ignored: s.ignored,
        });
      },
    );
  // A product no sender reports for (address, IP: the account posts its own outcomes) has no inbound route.
  if (!providers.length) return routes;
  return routes.post(
    `${base}/:provider/:feedbackKey`,
    describe({
      operationId: productOperationId("receive", product.name, "ProviderFeedback"),
      tag,
      auth: "none",
      summary:
        `Inbound delivery webhook from a sending provider (${providers.join(", ")}); authenticated by the fb_ ` +
        `key in the URL`,
      description:
        "Give this URL to your sending provider: each of its delivery events is mapped to `delivered`, `bounced` or " +
        "`complained` and recorded as feedback. No secret key: the `fb_` key in the path identifies the account. " +
        "An unknown provider is 404 `UNKNOWN_FEEDBACK_PROVIDER`. Free.",
      response: receivedSchema.extend({ ignored: z.int(), confirmed: z.boolean() }),
      errors: ["UNKNOWN_FEEDBACK_PROVIDER", "INVALID_FEEDBACK_KEY", "RATE_LIMITED"],
      // The sender's own format (SendGrid batches run to a few MB), read as counted, strict UTF-8 bytes.
      body: z.unknown().describe(`The sender's webhook body as it posts it (${providers.join(", ")}).`),
      bodyBytes: BODY_BYTES.inbound,
    }),
    // No length limits here: an unknown provider is a 404 and a bad key a 401, whatever their length.
    pathParams(z.object({ provider: z.string(), feedbackKey: z.string() })),
    async (c) => {
      const { provider, feedbackKey } = c.req.valid("param");
      const parse = Object.hasOwn(shape.providers, provider) ? shape.providers[provider] : undefined;
      if (!parse) throw new ApiError("UNKNOWN_FEEDBACK_PROVIDER", `Supported providers: ${providers.join(", ")}.`);
      const db = database(c.env);
      const accountId = await accountForFeedbackKey(db, feedbackKey, c.req.header("CF-Connecting-IP"));
      const batch = await parse(c.env, { headers: c.req.raw.headers, body: await readBody(c, BODY_BYTES.inbound) });
      if (!batch) throw validationFailed({ body: [`Not a ${provider} webhook body.`] });
      if (batch.invalid) throw validationFailed({ body: [batch.invalid] });
      const received = await receiveFeedback(c.env, product, {
        accountId,
        source: provider,
        events: batch.events,
        ignored: batch.ignored,
        now: Date.now(),
      });
      return ok(c, { ...received, ignored: batch.ignored, confirmed: batch.confirmed ?? false });
    },
  );
}
