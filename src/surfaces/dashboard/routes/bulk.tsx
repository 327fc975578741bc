import { isLiveKey } from "../../../db/api-keys";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  cancelRun,
  isRefusal,
  redeliverRun,
  resumeRun,
  runResults,
  type BulkRefusal,
} from "../../../engines/bulk/actions";
import type { JobRow } from "../../../engines/bulk/jobs";
import type { Product } from "../../../engines/product";
import {
  accountRun,
  accountRuns,
  redeliveryOf,
  bulkProducts,
  newUploadToken,
  runView,
  startRunFromUpload,
  uploadTokenOf,
} from "../bulk";
import { readUpload, rowsAreObjects } from "../bulk-upload";
import type { DashContext, DashEnv } from "../context";
import { listKeys } from "../keys";
import { BulkPage, type BulkPageProps } from "../pages/bulk";
import { RunPage } from "../pages/bulk-run";
import { MessagePage } from "../pages/sign-in";
import { isAccountKey } from "../try-it";

const pageNumber = (value: string | undefined) => {
  const n = Number(value ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

const renderList = async (
  c: DashContext,
  failed?: Pick<BulkPageProps, "errors" | "sent">,
  status: ContentfulStatusCode = 200,
) => {
  const page = pageNumber(c.req.query("page"));
  const { accountId } = c.var.session;
  const [keys, listing] = await Promise.all([listKeys(c.env, accountId), accountRuns(c.env, accountId, page)]);
  const products = bulkProducts().map((p) => ({ name: p.name, field: p.bulk!.field, objects: rowsAreObjects(p) }));
  const live = keys.filter((k) => k.kind === "secret" && isLiveKey(k));
  return c.html(
    <BulkPage
      session={c.var.session}
      products={products}
      keys={live}
      listing={listing}
      page={page}
      uploadToken={newUploadToken()}
      {...failed}
    />,
    status,
  );
};

const notFoundPage = (c: DashContext) =>
  c.html(<MessagePage title="Not found" message="This account has no such run." />, 404);

const renderRun = async (
  c: DashContext,
  run: { row: JobRow; product: Product },
  notice?: { text: string; warn?: boolean },
  status: ContentfulStatusCode = 200,
) =>
  c.html(
    <RunPage
      session={c.var.session}
      product={run.product.name}
      job={await runView(c.env, run)}
      number={run.row.accountRun ?? run.row.id}
      suppressedAdded={run.row.suppressedAdded}
      counters={run.product.bulk!.counters}
      hasWebhook={run.row.webhookUrl !== null}
      notice={notice}
    />,
    status,
  );

/** A refusal of the engine shown on the run's page, with the API's status for it (all 409). */
const refused = (c: DashContext, run: { row: JobRow; product: Product }, r: BulkRefusal) =>
  renderRun(c, run, { text: `${r.refused}: ${r.message}`, warn: true }, 409);

/** The run of the URL's id, if it is this account's. */
const runOf = (c: DashContext) => accountRun(c.env, c.var.session.accountId, Number(c.req.param("id")));

/**
 * Bulk runs: upload (started as the API request it stands for, with a pasted key that the run bills), the account's
 * runs, a run's page with its progress, cancel, resume, results and webhook redelivery. Reads need the session only; a
 * state change also its CSRF token (the gate in app.ts).
 */
export const bulkRoutes = () =>
  new Hono<DashEnv>()
    .get("/bulk", (c) => renderList(c))
    .post("/bulk", async (c) => {
      const fields = await c.req.parseBody();
      const [name, key] = [String(fields.product ?? ""), String(fields.key ?? "").trim()];
      const column = String(fields.column ?? "").trim();
      const webhookUrl = String(fields.webhook_url ?? "").trim();
      const country = String(fields.country ?? "")
        .trim()
        .toUpperCase();
      const sent = { product: name, column, webhookUrl, country };
      const product = bulkProducts().find((p) => p.name === name);
      if (!product) return renderList(c, { errors: ["product: Choose a product."], sent }, 422);
      const errors: string[] = [];
      if (!(await isAccountKey(c.env, c.var.session.accountId, key, c.req.header("CF-Connecting-IP"))))
        errors.push("key: Paste a secret key of this account (sk_live_...).");
      const upload = await readUpload(product, fields.file, column);
      if ("errors" in upload) errors.push(...upload.errors);
      if (errors.length || !("list" in upload)) return renderList(c, { errors, sent }, 422);
      // The run's options the form offers: the webhook, and the country of one-line addresses (address's own option).
      const body = {
        [product.bulk!.field]: upload.list,
        ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
        ...(country && product.bulk!.options?.country ? { country } : {}),
      };
      const answer = await startRunFromUpload(c, { product, key, body, token: uploadTokenOf(fields.upload_token) });
      const { data, error } = answer.envelope as {
        data?: { job?: { id: number } };
        error?: { code: string; message: string };
      };
      const job = data?.job;
      if (answer.status === 202 && job) return c.redirect(`/dashboard/bulk/runs/${job.id}`, 303);
      const detail = error ? `${error.code}: ${error.message}` : "the API did not start the run";
      return renderList(
        c,
        { errors: [`HTTP ${answer.status} ${detail}`], sent },
        answer.status as ContentfulStatusCode,
      );
    })
    .get("/bulk/runs/:id", async (c) => {
      const run = await runOf(c);
      return run ? renderRun(c, run) : notFoundPage(c);
    })
    .get("/bulk/runs/:id/progress", async (c) => {
      const run = await runOf(c);
      if (!run) return c.json({ error: "NOT_FOUND" }, 404);
      return c.json({ job: await runView(c.env, run), suppressed_added: run.row.suppressedAdded });
    })
    .get("/bulk/runs/:id/results.csv", async (c) => {
      const run = await runOf(c);
      if (!run) return notFoundPage(c);
      const results = runResults(c.env, run.product, run.row);
      if (isRefusal(results)) return refused(c, run, results);
      return new Response(results.body, {
        headers: {
          "Content-Type": "text/csv; charset=utf-8",
          "Content-Disposition": `attachment; filename="${results.filename}"`,
        },
      });
    })
    .post("/bulk/runs/:id/:action{cancel|resume}", async (c) => {
      const run = await runOf(c);
      if (!run) return notFoundPage(c);
      const act = c.req.param("action") === "cancel" ? cancelRun : resumeRun;
      const done = await act(c.env, run.row);
      if (isRefusal(done)) return refused(c, run, done);
      return c.redirect(`/dashboard/bulk/runs/${run.row.id}`, 303);
    })
    .post("/bulk/runs/:id/redeliver", async (c) => {
      const limited = await redeliveryOf(c, c.var.session);
      const run = await runOf(c);
      if (!run) return notFoundPage(c);
      if (limited) {
        c.header("Retry-After", String(limited.retryAfterSeconds));
        return renderRun(c, run, { text: `RATE_LIMITED: ${limited.message}`, warn: true }, 429);
      }
      const done = await redeliverRun(c.env, run.row);
      if (isRefusal(done)) return refused(c, run, done);
      return renderRun(c, { ...run, row: done }, { text: "The webhook is queued again (same body, new signature)." });
    });
