import type { Context } from "hono";
import { database } from "../../db/client";
import {
  findAccountJob,
  jobViewOf,
  jobViews,
  listAccountJobs,
  type JobRow,
  type JobView,
} from "../../engines/bulk/jobs";
import type { Product } from "../../engines/product";
import { isGoing } from "../../engines/bulk/run-actions";
import { admitPending, admitRedelivery } from "../../limits/admit";
import { Admission } from "../../limits/admission";
import { randomToken } from "../../platform/tokens";
import { productNamed, productNames } from "../../products/registry";
import type { DashboardSession } from "./session";
import { fieldErrors } from "../../http/validation";
import { createBody, startBulk } from "../bulk-acts";
import { refused } from "../key-act";
import type { DashContext } from "./context";
import { finishKeyRequest, keyRequest, type ApiAnswer } from "./key-request";

/** Every registered product with a bulk shape (entity has none): one choice of the upload form each. */
export const bulkProducts = (): Product[] =>
  productNames().flatMap((name) => {
    const product = productNamed(name);
    return product?.bulk ? [product] : [];
  });

/** A run of the account with its product, or null: another account's run (or an unknown id) is not found. */
export async function accountRun(
  env: Env,
  accountId: string,
  jobId: number,
): Promise<{ row: JobRow; product: Product } | null> {
  if (!Number.isSafeInteger(jobId) || jobId < 1) return null;
  const row = await findAccountJob(database(env), accountId, jobId);
  const product = row ? productNamed(row.product) : undefined;
  return row && product ? { row, product } : null;
}

/** The job object as the API shows it (the product's counters and run options). */
export const runView = (env: Env, run: { row: JobRow; product: Product }) =>
  jobViewOf(database(env), run.row, run.product);

export interface RunListing {
  /** Each run with its product and its number within the account. */
  runs: (JobView & { product: string; number: number })[];
  total: number;
}

/** The account's runs of every product, newest first, 100 a page. */
export async function accountRuns(env: Env, accountId: string, page: number): Promise<RunListing> {
  const db = database(env);
  const { rows, total } = await listAccountJobs(db, accountId, page);
  const views = await jobViews(db, rows);
  const runs = views.map((view, i) => ({ ...view, product: rows[i]!.product, number: rows[i]!.accountRun ?? view.id }));
  return { runs, total };
}

/** A run finished this recently shows on the payment's return page: the payment may have resumed and finished it. */
const FINISHED_LATELY_MS = 10 * 60_000;

/**
 * For the payment's return page: the account's recent runs (first page) that stopped for lack of credits, are going
 * (a run the payment resumed is going again), or finished in the last minutes (a short remainder finishes before the
 * browser is back from the payment page).
 */
export async function runsAfterPayment(env: Env, accountId: string) {
  const { runs } = await accountRuns(env, accountId, 1);
  const lately = Date.now() - FINISHED_LATELY_MS;
  return runs
    .filter(
      (run) =>
        run.stopped_reason === "insufficient_credits" ||
        isGoing(run.status) ||
        (run.finished_at !== null && Date.parse(run.finished_at) > lately),
    )
    .map((run) => ({ id: run.id, number: run.number, status: run.status, stoppedReason: run.stopped_reason }));
}

/** The upload form's one-time token: made when the page is rendered, it names that form's submission. */
export const newUploadToken = () => randomToken(32);

/** The token as the form sent it back, or null for anything this page did not make (the run then has no key). */
export const uploadTokenOf = (value: unknown): string | null =>
  typeof value === "string" && UPLOAD_TOKEN.test(value) ? value : null;

const UPLOAD_TOKEN = /^[0-9A-Za-z]{32}$/;

/**
 * Starts a run as the API request `POST /{product}/bulk` it stands for: the pasted key checked as the API checks it,
 * its rate limit counted, the body checked by the API's own schema, then the bulk engine's create (billed by that key,
 * with its daily cap). The form's token is the run's Idempotency-Key, so a form submitted twice starts one run.
 */
export async function startRunFromUpload(c: DashContext, upload: Upload): Promise<ApiAnswer> {
  const { product } = upload;
  const request = await keyRequest(c, { path: `/${product.name}/bulk`, scope: product.scope }, upload.key);
  if (!("act" in request)) return request;
  const limited = await admitPending(c.env, request.act.admission);
  if (limited) return finishKeyRequest(c, request, { ok: false, error: limited });
  const parsed = createBody(product).safeParse(upload.body);
  if (!parsed.success)
    return finishKeyRequest(
      c,
      request,
      refused("VALIDATION_FAILED", "The request has invalid fields.", fieldErrors(parsed.error)),
    );
  const idempotencyKey = upload.token ? `dashboard-upload-${upload.token}` : null;
  return finishKeyRequest(
    c,
    request,
    await startBulk(request.act, product, { body: parsed.data, idempotencyKey }),
    202,
  );
}

/** An upload form's submission: the product, the pasted key, the body the API takes, and the form's token. */
export interface Upload {
  product: Product;
  key: string;
  body: Record<string, unknown>;
  token: string | null;
}

/**
 * Counts one redelivery of the signed-in person: the API's own function, the person as the subject (a key's holder is
 * this user), so the button and every key of theirs share one budget. Null when admitted, else how long to wait.
 */
export function redeliveryOf(c: Context, session: DashboardSession) {
  const admission = new Admission(session.accountId, [], {
    requestId: crypto.randomUUID(),
    accountId: session.accountId,
    keyId: null,
    method: c.req.method,
    path: c.req.path,
  });
  return admitRedelivery(c.env, admission, session.userId);
}
