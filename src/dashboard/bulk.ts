import type { Context, Hono } from "hono";
import { database } from "../db/client";
import { findAccountJob, jobViewOf, jobViews, listAccountJobs, type JobRow, type JobView } from "../engines/bulk/jobs";
import type { Product } from "../engines/product";
import { admitRedelivery } from "../auth/admit";
import { Admission } from "../limits/admission";
import { randomToken } from "../platform/tokens";
import { productNamed, productNames } from "../products/registry";
import type { AppEnv } from "../types";
import type { DashboardSession } from "./session";
import { forwardToApi } from "./try-it";

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
  runs: (JobView & { product: string })[];
  total: number;
}

/** The account's runs of every product, newest first, 100 a page. */
export async function accountRuns(env: Env, accountId: string, page: number): Promise<RunListing> {
  const db = database(env);
  const { rows, total } = await listAccountJobs(db, accountId, page);
  const views = await jobViews(db, rows);
  return { runs: views.map((view, i) => ({ ...view, product: rows[i]!.product })), total };
}

export interface ApiAnswer {
  status: number;
  envelope: { success?: boolean; data?: { job?: { id: number } }; error?: { code: string; message: string } };
}

/** The upload form's one-time token: made when the page is rendered, it names that form's submission. */
export const newUploadToken = () => randomToken(32);

/** The token as the form sent it back, or null for anything this page did not make (the run then has no key). */
export const uploadTokenOf = (value: unknown): string | null =>
  typeof value === "string" && UPLOAD_TOKEN.test(value) ? value : null;

const UPLOAD_TOKEN = /^[0-9A-Za-z]{32}$/;

/**
 * Starts a run as the API request it is, in-process (as try it does): the key, its scopes, source allowlist, rate
 * limits, the body's validation and the run's billing (by that key, with its daily cap) are the API route's. The
 * form's token is the request's `Idempotency-Key`, so a form submitted twice replays the first answer: one run.
 */
export const startRunThroughApi = async (
  c: Context,
  app: () => Hono<AppEnv>,
  product: Product,
  key: string,
  body: Record<string, unknown>,
  uploadToken: string | null,
): Promise<ApiAnswer> =>
  forwardToApi(
    c,
    app,
    `/${product.name}/bulk`,
    key,
    JSON.stringify(body),
    uploadToken ? { "Idempotency-Key": `dashboard-upload-${uploadToken}` } : {},
  );

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
