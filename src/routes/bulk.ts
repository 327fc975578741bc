import { and, count, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { secretKey } from "../auth/secret-key";
import type { Scope } from "../auth/scopes";
import { database } from "../db/client";
import { bulkJobs } from "../db/schema";
import { ok } from "../http/envelope";
import { ApiError, notFound } from "../http/errors";
import { describe } from "../http/openapi";
import { pathParams, queryParams } from "../http/validation";
import { enforceLimit } from "../limits/limiter";
import { findJob, jobView, PER_PAGE, resultsPrefix, RETENTION_DAYS, type JobMessage } from "../jobs/bulk-engine";
import type { BulkProduct } from "../jobs/product";
import { finishJob } from "../../workers/bulk-runner";
import type { AppEnv } from "../types";
import { dateOrTimestamp } from "./email-lists";

const STATUSES = ["queued", "processing", "completed", "failed", "cancelled"] as const;
const jobParam = pathParams(z.object({ jobId: z.coerce.number().int().min(1) }));

export const payer = (c: Context<AppEnv>) => {
  const principal = c.var.principal;
  if (principal?.kind !== "secret") throw new Error("bulk routes need a secret-key principal");
  return principal;
};

/** Poll, list, cancel, resume, results and redelivery of one product's bulk runs; creation lives with the product. */
export function bulkRunRoutes(product: BulkProduct, scope: Scope) {
  const base = `/${product.name}/bulk`;
  const load = async (c: Context<AppEnv>, jobId: number) => {
    const job = await findJob(database(c.env), product, payer(c).accountId, jobId);
    if (!job) throw notFound("Job");
    return job;
  };
  const jobResponse = z.object({ job: z.object({ id: z.int(), status: z.enum(STATUSES) }) });

  return new Hono<AppEnv>()
    .get(
      base,
      describe({ tag: "Bulk", summary: `List ${product.name} bulk runs, newest first, 100 a page`, response: z.object({ jobs: z.array(jobResponse.shape.job) }) }),
      secretKey({ scope }),
      queryParams(
        z.object({
          status: z.enum(STATUSES).optional(),
          since: dateOrTimestamp(false).optional(),
          until: dateOrTimestamp(true).optional(),
          page: z.coerce.number().int().min(1).default(1),
        }),
      ),
      async (c) => {
        const q = c.req.valid("query");
        const filters: (SQL | undefined)[] = [
          eq(bulkJobs.accountId, payer(c).accountId),
          eq(bulkJobs.product, product.name),
          q.status ? eq(bulkJobs.status, q.status) : undefined,
          q.since !== undefined ? gte(bulkJobs.createdAt, q.since) : undefined,
          q.until !== undefined ? lt(bulkJobs.createdAt, q.until) : undefined,
        ];
        const db = database(c.env);
        const where = and(...filters);
        const [rows, [total]] = await Promise.all([
          db.select().from(bulkJobs).where(where).orderBy(desc(bulkJobs.id)).limit(PER_PAGE).offset((q.page - 1) * PER_PAGE),
          db.select({ n: count() }).from(bulkJobs).where(where),
        ]);
        return ok(c, { jobs: rows.map(jobView) }, { page: q.page, per_page: PER_PAGE, total: total?.n ?? 0, retention_days: RETENTION_DAYS });
      },
    )
    .get(`${base}/:jobId`, describe({ tag: "Bulk", summary: "Poll one run", response: jobResponse, errors: ["NOT_FOUND"] }), secretKey({ scope }), jobParam, async (c) =>
      ok(c, { job: jobView(await load(c, c.req.valid("param").jobId)) }),
    )
    .post(
      `${base}/:jobId/cancel`,
      describe({ tag: "Bulk", summary: "Cancel a queued or running run", response: jobResponse, errors: ["NOT_FOUND", "JOB_ALREADY_FINISHED"] }),
      secretKey({ scope }),
      jobParam,
      async (c) => {
        const job = await load(c, c.req.valid("param").jobId);
        if (!["queued", "processing"].includes(job.status)) throw new ApiError("JOB_ALREADY_FINISHED", `The run is already ${job.status}.`);
        const db = database(c.env);
        await db.update(bulkJobs).set({ cancelRequested: true, updatedAt: Date.now() }).where(eq(bulkJobs.id, job.id));
        // A queued run has no consumer yet to notice the request: it settles now. A running one stops at its next step.
        if (job.status === "queued") await finishJob(c.env, job.id, "cancelled");
        return ok(c, { job: jobView((await load(c, job.id))) });
      },
    )
    .post(
      `${base}/:jobId/resume`,
      describe({ tag: "Bulk", summary: "Resume a run that stopped for lack of credits", response: jobResponse, errors: ["NOT_FOUND", "JOB_NOT_RESUMABLE", "JOB_INPUT_EXPIRED"] }),
      secretKey({ scope }),
      jobParam,
      async (c) => {
        const job = await load(c, c.req.valid("param").jobId);
        const stoppedForCredits = job.status === "completed" && (job.stoppedReason === "insufficient_credits" || job.stoppedReason === "key_spend_cap");
        if (!stoppedForCredits) throw new ApiError("JOB_NOT_RESUMABLE", "Only a settled run that stopped for lack of credits can be resumed.");
        if (job.inputExpired) throw new ApiError("JOB_INPUT_EXPIRED", "The uploaded list has passed out of retention; submit it again.");
        const [resumed] = await database(c.env)
          .update(bulkJobs)
          .set({ status: "processing", stoppedReason: null, finishedAt: null, updatedAt: Date.now() })
          .where(and(eq(bulkJobs.id, job.id), eq(bulkJobs.status, "completed"), inArray(bulkJobs.stoppedReason, ["insufficient_credits", "key_spend_cap"])))
          .returning();
        if (!resumed) throw new ApiError("JOB_NOT_RESUMABLE", "The run is already going again.");
        await c.env.JOBS.send({ type: "run", jobId: job.id } satisfies JobMessage);
        return ok(c, { job: jobView(resumed) });
      },
    )
    .get(
      `${base}/:jobId/results`,
      describe({ tag: "Bulk", summary: "Results as CSV (kept 30 days)", errors: ["NOT_FOUND", "RESULTS_NOT_READY", "JOB_CANCELLED", "JOB_FAILED"] }),
      secretKey({ scope }),
      jobParam,
      queryParams(z.object({ variant: z.enum(product.countKeys as [string, ...string[]]).optional() })),
      async (c) => {
        const job = await load(c, c.req.valid("param").jobId);
        if (job.status === "queued" || job.status === "processing") throw new ApiError("RESULTS_NOT_READY", "The run is still going.");
        if (job.status === "cancelled" && job.processed === 0) throw new ApiError("JOB_CANCELLED", "The run was cancelled before any row was processed.");
        if (job.status === "failed" && job.processed === 0) throw new ApiError("JOB_FAILED", "The run failed before any row was written.");
        const variant = c.req.valid("query").variant;
        return new Response(resultsStream(c.env, job.id, product, variant), {
          headers: {
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": `attachment; filename="${product.name}-bulk-${job.id}${variant ? `-${variant}` : ""}.csv"`,
          },
        });
      },
    );
}

/** The header, then every stored part in order; with a variant, only rows whose verdict column matches. */
function resultsStream(env: Env, jobId: number, product: BulkProduct, variant: string | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const verdictColumn = product.csvHeader.indexOf(product.countKeys.length ? "deliverable" : "");
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${product.csvHeader.join(",")}\n`));
      let cursor: string | undefined;
      do {
        const listed = await env.RESULTS.list({ prefix: resultsPrefix(jobId), ...(cursor ? { cursor } : {}) });
        for (const { key } of listed.objects.sort((a, b) => a.key.localeCompare(b.key))) {
          const text = (await (await env.RESULTS.get(key))?.text()) ?? "";
          const lines = variant ? text.split("\n").filter((line) => line && parseCsvLine(line)[verdictColumn] === variant) : [text];
          if (lines.length) controller.enqueue(encoder.encode(variant ? `${lines.join("\n")}\n` : text));
        }
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      controller.close();
    },
  });
}

function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") cells.push(cell), (cell = "");
    else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/** `POST /{product}/bulk/{jobId}/webhook/redeliver`, shared by every product's runs (rules 1-6). */
export function redeliverRoute(product: BulkProduct, scope: Scope) {
  return new Hono<AppEnv>().post(
    `/${product.name}/bulk/:jobId/webhook/redeliver`,
    describe({
      tag: "Bulk",
      summary: "Queue the completion webhook again (same body, new V2 timestamp); 10 a minute per user",
      status: 202,
      errors: ["NOT_FOUND", "WEBHOOK_NOT_CONFIGURED", "JOB_NOT_FINISHED", "RATE_LIMITED"],
    }),
    secretKey({ scope }),
    jobParam,
    async (c) => {
      const principal = payer(c);
      await enforceLimit(c.env, "redeliveryUser", principal.userId ?? principal.keyId);
      const db = database(c.env);
      const job = await findJob(db, product, principal.accountId, c.req.valid("param").jobId);
      if (!job) throw notFound("Job");
      if (!job.webhookUrl) throw new ApiError("WEBHOOK_NOT_CONFIGURED", "The run was created without webhook_url.");
      const [pending] = await db
        .update(bulkJobs)
        .set({ webhookStatus: "pending", webhookDetail: null })
        .where(and(eq(bulkJobs.id, job.id), inArray(bulkJobs.status, ["completed", "failed", "cancelled"])))
        .returning();
      if (!pending?.webhookBody) throw new ApiError("JOB_NOT_FINISHED", "The run is still queued or running.");
      await c.env.JOBS.send({ type: "webhook", jobId: job.id } satisfies JobMessage);
      return ok(c, { job: jobView(pending) }, {}, 202);
    },
  );
}
