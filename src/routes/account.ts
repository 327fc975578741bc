import { Hono } from "hono";
import { z } from "zod";
import type { AccountSnapshot, LedgerRow } from "../../durable-objects/account-credits";
import { accountFieldsOf, type AccountFields } from "../auth/key-lookup";
import { secretKey } from "../auth/secret-key";
import { accountEntry, creditsStub } from "../engines/credits/credits";
import { FAIR_USE_WINDOW_MS, PLAN_NAMES } from "../engines/credits/plans";
import { database } from "../db/client";
import { ok } from "../http/envelope";
import { notFound, validationFailed } from "../http/errors";
import { pageMeta } from "../http/meta";
import { readRequestRecord } from "../http/request-record";
import { describe } from "../http/openapi";
import { jsonBody, pathParams, queryParams } from "../http/validation";
import type { AppEnv } from "../types";

export const LEDGER_PER_PAGE = 100;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const isoSchema = z.iso.datetime();

const accountSchema = z.object({
  id: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  created_at: isoSchema,
  plan: z.object({
    name: z.enum(PLAN_NAMES),
    status: z.enum(["active", "cancelled"]),
    monthly_credits: z.int(),
    cancelled_at: isoSchema.nullable(),
    plan_credits_expire_at: isoSchema.nullable(),
  }),
  balance: z.object({ total: z.int(), plan: z.int(), pack: z.int(), reserved: z.int(), available: z.int() }),
  grant: z.object({ monthly_credits: z.int(), rollover_cap: z.int(), next_grant_at: isoSchema.nullable() }),
  fair_use: z.object({
    window_days: z.int(),
    billed_answers: z.int(),
    undeliverable_checked: z.int(),
    free_undeliverable_limit: z.int(),
    free_undeliverable_remaining: z.int(),
  }),
  mail: z.object({
    low_balance_threshold: z
      .int()
      .nullable()
      .describe("Mail the members once when the balance (plan + pack credits) falls below this; null: never"),
    bulk_finished_emails: z.boolean().describe("Mail the members when a bulk run of the account finishes"),
  }),
});

/** The account's own settings (docs/mail.md): what it asks to be mailed about. */
const accountPatchSchema = z.strictObject({
  low_balance_threshold: z.int().min(1).max(1_000_000_000).nullable().optional(),
  bulk_finished_emails: z.boolean().optional(),
});

const ledgerRowSchema = z.object({
  id: z.int(),
  at: isoSchema,
  request_id: z.string().nullable(),
  kind: z.enum(["monthly_grant", "plan_credit", "pack_credit", "charge", "expiry"]),
  plan_delta: z.int(),
  pack_delta: z.int(),
  plan_balance: z.int(),
  pack_balance: z.int(),
  key_id: z.string().nullable(),
  note: z.string().nullable(),
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

export function accountView(account: AccountFields, s: AccountSnapshot): z.infer<typeof accountSchema> {
  return {
    id: account.id,
    email: account.email,
    email_verified: account.emailVerified,
    created_at: iso(account.createdAt)!,
    plan: {
      name: s.plan,
      status: s.plan_status,
      monthly_credits: s.monthly_credits,
      cancelled_at: iso(s.cancelled_at),
      plan_credits_expire_at: iso(s.plan_credits_expire_at),
    },
    balance: {
      total: s.plan_credits + s.pack_credits,
      plan: s.plan_credits,
      pack: s.pack_credits,
      reserved: s.reserved,
      available: s.available,
    },
    grant: {
      monthly_credits: s.monthly_credits,
      rollover_cap: s.monthly_credits * 3,
      next_grant_at: iso(s.next_grant_at),
    },
    fair_use: { window_days: FAIR_USE_WINDOW_MS / 86_400_000, ...s.fair_use },
    mail: s.mail ?? { low_balance_threshold: null, bulk_finished_emails: false },
  };
}

const ledgerView = (row: LedgerRow): z.infer<typeof ledgerRowSchema> => ({
  id: row.id,
  at: iso(row.at)!,
  request_id: row.request_id,
  kind: row.kind,
  plan_delta: row.plan_delta,
  pack_delta: row.pack_delta,
  plan_balance: row.plan_after,
  pack_balance: row.pack_after,
  key_id: row.key_id,
  note: row.note,
});

const accountId = (c: { var: AppEnv["Variables"] }) => {
  const principal = c.var.principal;
  if (principal?.kind !== "secret") throw new Error("account routes need a secret-key principal");
  return principal.accountId;
};

export const accountRoutes = new Hono<AppEnv>()
  .get(
    "/account",
    describe({
      tag: "Account",
      summary: "Balance (plan/pack), plan, monthly grant and fair-use window",
      description:
        "The key's account: balance split into plan credits (granted monthly) and pack credits (bought, used after " +
        "plan credits), the plan and its monthly grant, and the fair-use window. Free; needs the `account` scope.",
      response: accountSchema,
      meta: z.object({ credits_used: z.int(), credits_remaining: z.int() }),
    }),
    secretKey({ scope: "account", admitOnFirstCall: true }),
    async (c) => {
      const id = accountId(c);
      const [account, snapshot] = await Promise.all([
        accountFieldsOf(database(c.env), id),
        accountEntry(c.env, id, c.var.admission).snapshot(),
      ]);
      if (!account) throw notFound("Account");
      return ok(c, accountView(account, snapshot), { credits_used: 0, credits_remaining: snapshot.available });
    },
  )
  .patch(
    "/account",
    describe({
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
        creditsStub(c.env, id).setMailSettings(body),
      ]);
      if (!account) throw notFound("Account");
      return ok(c, accountView(account, snapshot), { credits_used: 0, credits_remaining: snapshot.available });
    },
  )
  .get(
    "/account/ledger",
    describe({
      tag: "Account",
      summary: "Every credit movement, newest first, 100 a page",
      description:
        "Every grant, hold, charge and release with the request id that caused it, newest first. A lookup's charge " +
        "is its row here; `GET /account/requests/{requestId}` explains it. Free.",
      response: z.object({ entries: z.array(ledgerRowSchema) }),
      meta: pageMeta,
    }),
    secretKey({ scope: "account", admitOnFirstCall: true }),
    queryParams(z.object({ page: z.coerce.number().int().min(1).default(1) })),
    async (c) => {
      const { page } = c.req.valid("query");
      const { rows, total } = await accountEntry(c.env, accountId(c), c.var.admission).ledger(page, LEDGER_PER_PAGE);
      return ok(c, { entries: rows.map(ledgerView) }, { page, per_page: LEDGER_PER_PAGE, total });
    },
  )
  .get(
    "/account/requests/:requestId",
    describe({
      tag: "Account",
      summary: "What one request did",
      description:
        "The record of one request of the account: endpoint, key, status, credits used and why. Request ids come " +
        "from `meta.request_id` or `X-Request-Id`. Readable as soon as that request's answer was received: a " +
        "record still on its way to storage is waited for (up to 5 s after the request). Another account's " +
        "request is 404. Free.",
      response: requestRecordSchema,
      errors: ["NOT_FOUND"],
    }),
    secretKey({ scope: "account" }),
    pathParams(z.object({ requestId: z.string().max(64) })),
    async (c) => {
      const { requestId } = c.req.valid("param");
      const row = await readRequestRecord(c.env, accountId(c), requestId);
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
