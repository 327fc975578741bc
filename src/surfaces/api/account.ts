import { type Context, Hono } from "hono";
import { z } from "zod";
import { accountFieldsOf } from "../../auth/key-lookup";
import { secretPrincipal } from "../../auth/principal";
import { secretKey } from "../../auth/secret-key";
import { accountObject } from "../../engines/credits/credits";
import { database } from "../../db/client";
import { ok } from "../../http/envelope";
import { notFound, validationFailed } from "../../http/errors";
import { pageMeta } from "../../http/meta";
import { requestCredential } from "../../http/credential";
import { readRequestRecord } from "../../http/request-record";
import { describe } from "../../http/openapi";
import { jsonBody, pathParams, queryParams } from "../../http/validation";
import { accountSchema, accountView, ledgerRowSchema, readAccount, readLedger } from "../account-reads";
import { actOf, answerOf } from "./rest-act";
import type { AppEnv } from "../../types";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const isoSchema = z.iso.datetime();

/** The account's own settings (docs/mail.md): what it asks to be mailed about. */
const accountPatchSchema = z.strictObject({
  low_balance_threshold: z.int().min(1).max(1_000_000_000).nullable().optional(),
  bulk_finished_emails: z.boolean().optional(),
});

const requestRecordSchema = z.object({
  request_id: z.string(),
  endpoint: z.string(),
  status: z.int(),
  code: z.string().nullable(),
  credits_used: z.int(),
  key_id: z.string().nullable(),
  created_at: isoSchema,
});

const accountId = (c: Context<AppEnv>) => secretPrincipal(c).accountId;

export const accountRoutes = new Hono<AppEnv>()
  .get(
    "/account",
    describe({
      operationId: "getAccount",
      tag: "Account",
      summary: "Balance (plan/pack), plan, monthly grant and fair-use window",
      description:
        "The key's account: balance split into plan credits (granted monthly) and pack credits (bought, used after " +
        "plan credits), the plan and its monthly grant, and the fair-use window. Free; needs the `account` scope.",
      response: accountSchema,
      meta: z.object({ credits_used: z.int(), credits_remaining: z.int() }),
    }),
    secretKey({ scope: "account", admitOnFirstCall: true }),
    async (c) => answerOf(c, await readAccount(actOf(c))),
  )
  .patch(
    "/account",
    describe({
      operationId: "updateAccount",
      tag: "Account",
      summary: "Change the account's mail settings: low_balance_threshold, bulk_finished_emails",
      description:
        "Sets the balance below which the members get one low-balance email per crossing (null: never) and whether " +
        "they get an email when a bulk run finishes. Only the fields sent change; answers the account as `GET " +
        "/account` does. Free; needs the `account` scope.",
      response: accountSchema,
      meta: z.object({ credits_used: z.int(), credits_remaining: z.int() }),
    }),
    secretKey({ scope: "account" }),
    jsonBody(accountPatchSchema),
    async (c) => {
      const body = c.req.valid("json");
      if (Object.keys(body).length === 0)
        throw validationFailed({ body: ["Name at least one of low_balance_threshold, bulk_finished_emails."] });
      const id = accountId(c);
      const [account, snapshot] = await Promise.all([
        accountFieldsOf(database(c.env), id),
        accountObject(c.env, id).setMailSettings(body),
      ]);
      if (!account) throw notFound("Account");
      return ok(c, accountView(account, snapshot), { credits_used: 0, credits_remaining: snapshot.available });
    },
  )
  .get(
    "/account/ledger",
    describe({
      operationId: "getLedger",
      tag: "Account",
      summary: "Every credit movement, newest first, 100 a page",
      description:
        "Every grant, purchase, charge, refund and expiry with the request id that caused it, newest first (a hold " +
        "and its release write no row). A lookup's charge is its row here, naming its product; " +
        "`GET /account/requests/{requestId}` explains it. A request that ended in an error after it was charged is " +
        "given its charge back in a `refund` row under the same request id. Free.",
      response: z.object({ entries: z.array(ledgerRowSchema) }),
      meta: pageMeta,
    }),
    secretKey({ scope: "account", admitOnFirstCall: true }),
    queryParams(z.object({ page: z.coerce.number().int().min(1).default(1) })),
    async (c) => answerOf(c, await readLedger(actOf(c), c.req.valid("query").page)),
  )
  .get(
    "/account/requests/:requestId",
    describe({
      operationId: "getAccountRequest",
      tag: "Account",
      summary: "What one request did",
      description:
        "The record of one request of the account: endpoint, key, status, credits used and why. Request ids come " +
        "from `meta.request_id` or `X-Request-Id`. Readable as soon as that request's answer was received: a " +
        "record still on its way to storage is waited for (up to 5 s after the request) when asked with the " +
        "credential that made the request (the same key); any other id is answered at once. Another account's " +
        "request is 404. Free.",
      response: requestRecordSchema,
      errors: ["NOT_FOUND"],
    }),
    secretKey({ scope: "account" }),
    pathParams(z.object({ requestId: z.string().max(64) })),
    async (c) => {
      const { requestId } = c.req.valid("param");
      const ask = { accountId: accountId(c), requestId, credential: requestCredential(c) };
      const row = await readRequestRecord(c.env, ask);
      if (!row) throw notFound("Request");
      return ok(c, {
        request_id: row.requestId,
        endpoint: `${row.method} ${row.path}`,
        status: row.status,
        code: row.code,
        credits_used: row.credits,
        key_id: row.keyId,
        created_at: iso(row.createdAt)!,
      });
    },
  );
