import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { database } from "../../db/client";
import { cancelRun, isRefusal, redeliverRun, resumeRun, type BulkRefusal } from "../../engines/bulk/actions";
import { csvHeader } from "../../engines/bulk/csv";
import { findJob, jobViewOf, listJobs, RETENTION_DAYS, STATUSES } from "../../engines/bulk/jobs";
import type { Product } from "../../engines/product";
import { ok } from "../../http/envelope";
import { ApiError, notFound } from "../../http/errors";
import { retainedPageMeta } from "../../http/meta";
import { describe } from "../../http/openapi";
import { productOperationId } from "../../http/operation-ids";
import { pathParams, queryParams } from "../../http/validation";
import { dateOrTimestamp, page, PER_PAGE } from "../../http/time";
import { admitRedelivery } from "../../limits/admit";
import { bulkResults, pollBulk } from "../bulk-acts";
import { actOf, answerOf, apiErrorOf } from "./rest-act";
import type { AppEnv } from "../../types";

const jobParam = pathParams(z.object({ jobId: z.coerce.number().int().min(1) }));

/** A run's refusal (src/engines/bulk/actions.ts) as the spec's error. */
export const bulkError = (refused: BulkRefusal) =>
  new ApiError(refused.refused, refused.message, { errors: refused.errors });

/** The account's run of this product, or 404. */
async function loadJob(c: Context<AppEnv>, product: Product, jobId: number) {
  const job = await findJob(database(c.env), product, secretPrincipal(c).accountId, jobId);
  if (!job) throw notFound("Job");
  return job;
}

/** The job object of one product, for the OpenAPI document: the shared fields plus the product's counters. */
export function jobSchema(product: Product) {
  const counters = Object.fromEntries((product.bulk?.counters ?? []).map((name) => [name, z.int()]));
  return z.object({
    id: z.int(),
    status: z.enum(STATUSES),
    total: z.int(),
    duplicate_count: z.int(),
    processed: z.int(),
    ...counters,
    credits_used: z.int(),
    stopped_reason: z.enum(["insufficient_credits", "key_spend_cap"]).nullable(),
    cancel_requested: z.boolean(),
    webhook_status: z.enum(["pending", "delivered", "failed"]).nullable(),
    webhook_detail: z.string().nullable(),
    ...Object.fromEntries(
      (product.bulk?.jobFields ?? []).map((name) => [name, (product.bulk?.options?.[name] ?? z.unknown()).nullable()]),
    ),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
  });
}

/** List, poll, cancel, resume, results and redelivery of one product's runs. */
export function bulkRunRoutes(product: Product) {
  const base = `/${product.name}/bulk`;
  const scope = product.scope;
  const jobResponse = z.object({ job: jobSchema(product) });
  const load = (c: Context<AppEnv>, jobId: number) => loadJob(c, product, jobId);
  const listQuery = z.object({
    status: z.enum(STATUSES).optional(),
    since: dateOrTimestamp(false).optional(),
    until: dateOrTimestamp(true).optional(),
    page,
  });

  return new Hono<AppEnv>()
    .get(
      base,
      describe({
        operationId: productOperationId("list", product.name, "BulkRuns"),
        tag: "Bulk",
        summary: `List ${product.name} bulk runs, newest first, 100 a page`,
        description:
          "Runs of the account, newest first, filtered by `status` and a creation window (`since`, `until`); runs " +
          "are kept 30 days. Free.",
        response: z.object({ jobs: z.array(jobResponse.shape.job) }),
        meta: retainedPageMeta,
      }),
      secretKey({ scope }),
      queryParams(listQuery),
      async (c) => {
        const q = c.req.valid("query");
        const { jobs, total } = await listJobs(database(c.env), product, secretPrincipal(c).accountId, q);
        return ok(c, { jobs }, { page: q.page, per_page: PER_PAGE, total, retention_days: RETENTION_DAYS });
      },
    )
    .get(
      `${base}/:jobId`,
      describe({
        operationId: productOperationId("get", product.name, "BulkRun"),
        tag: "Bulk",
        summary: "Poll one run",
        description:
          "The run's status, counters, credits used, `stopped_reason` and webhook status. Another account's run is " +
          "404. Free.",
        response: jobResponse,
        errors: ["NOT_FOUND"],
      }),
      secretKey({ scope }),
      jobParam,
      async (c) => answerOf(c, await pollBulk(actOf(c), product, c.req.valid("param").jobId)),
    )
    .post(
      `${base}/:jobId/cancel`,
      describe({
        operationId: productOperationId("cancel", product.name, "BulkRun"),
        tag: "Bulk",
        summary: "Cancel a queued or running run",
        description:
          "Asks the run to stop: a queued run is cancelled at once, a running one at its next step; rows answered so " +
          "far stay billed and in the results. 409 when it already finished. Free.",
        response: jobResponse,
        errors: ["NOT_FOUND", "JOB_ALREADY_FINISHED"],
      }),
      secretKey({ scope }),
      jobParam,
      async (c) => {
        const cancelled = await cancelRun(c.env, await load(c, c.req.valid("param").jobId));
        if (isRefusal(cancelled)) throw bulkError(cancelled);
        return ok(c, { job: await jobViewOf(database(c.env), cancelled, product) });
      },
    )
    .post(
      `${base}/:jobId/resume`,
      describe({
        operationId: productOperationId("resume", product.name, "BulkRun"),
        tag: "Bulk",
        summary: "Resume a run that stopped for lack of credits",
        description:
          "Continues a run that stopped with `insufficient_credits` or `key_spend_cap` from the first row not " +
          "answered. 409 when the run cannot resume or its input was deleted (after 7 days). Free; the rows are " +
          "billed as they are answered.",
        response: jobResponse,
        errors: ["NOT_FOUND", "JOB_NOT_RESUMABLE", "JOB_INPUT_EXPIRED"],
      }),
      secretKey({ scope }),
      jobParam,
      async (c) => {
        const resumed = await resumeRun(c.env, await load(c, c.req.valid("param").jobId));
        if (isRefusal(resumed)) throw bulkError(resumed);
        return ok(c, { job: await jobViewOf(database(c.env), resumed, product) });
      },
    )
    .route("/", finishedRunRoutes(product));
}

/** What a settled run offers: its CSV results and the redelivery of its completion webhook. */
function finishedRunRoutes(product: Product) {
  const base = `/${product.name}/bulk`;
  const scope = product.scope;
  const jobResponse = z.object({ job: jobSchema(product) });
  const load = (c: Context<AppEnv>, jobId: number) => loadJob(c, product, jobId);
  return new Hono<AppEnv>()
    .get(
      `${base}/:jobId/results`,
      describe({
        operationId: productOperationId("get", product.name, "BulkResults"),
        tag: "Bulk",
        summary: `Results as CSV (kept 30 days): ${csvHeader(product).join(", ")}`,
        file: "text/csv",
        description:
          "The results as `text/csv` (RFC 4180, cells that a spreadsheet would run as formulas prefixed with `'`), " +
          "one row per submitted row in input order; `variant` keeps the rows of one verdict counter. 409 while " +
          "the run is going, or when it was cancelled or failed before any row. Free.",
        errors: ["NOT_FOUND", "RESULTS_NOT_READY", "JOB_CANCELLED", "JOB_FAILED"],
      }),
      secretKey({ scope }),
      jobParam,
      queryParams(z.object({ variant: z.enum(product.bulk!.counters as [string, ...string[]]).optional() })),
      async (c) => {
        const read = { jobId: c.req.valid("param").jobId, variant: c.req.valid("query").variant };
        const results = await bulkResults(actOf(c), product, read);
        if (!results.ok) throw apiErrorOf(results.error);
        return new Response(results.data.body, {
          headers: {
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": `attachment; filename="${results.data.filename}"`,
          },
        });
      },
    )
    .post(
      `${base}/:jobId/webhook/redeliver`,
      describe({
        operationId: productOperationId("redeliver", product.name, "BulkWebhook"),
        tag: "Bulk",
        summary: "Queue the completion webhook again (same body, new V2 timestamp); 10 a minute per user",
        description:
          "Queues the run's finished event again: the same bytes, a fresh V2 signature, the same " +
          "`Webhook-Delivery-Id`. 409 without a webhook URL or before the run finished. Free.",
        status: 202,
        response: jobResponse,
        errors: ["NOT_FOUND", "WEBHOOK_NOT_CONFIGURED", "JOB_NOT_FINISHED", "RATE_LIMITED"],
      }),
      secretKey({ scope, admitOnFirstCall: true }),
      jobParam,
      async (c) => {
        const principal = secretPrincipal(c);
        const limited = await admitRedelivery(c.env, c.var.admission!, principal.userId ?? principal.keyId);
        if (limited) throw apiErrorOf(limited);
        const job = await redeliverRun(c.env, await load(c, c.req.valid("param").jobId));
        if (isRefusal(job)) throw bulkError(job);
        return ok(c, { job: await jobViewOf(database(c.env), job, product) }, {}, 202);
      },
    );
}
