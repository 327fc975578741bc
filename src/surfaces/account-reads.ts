import { z } from "zod";
import type { AccountSnapshot, LedgerRow } from "../../durable-objects/account-object";
import { accountFieldsOf, type AccountFields } from "../auth/key-lookup";
import { database } from "../db/client";
import { accountEntry } from "../engines/credits/credits";
import { FAIR_USE_WINDOW_MS, PLAN_NAMES } from "../engines/credits/plans";
import { answered, notFoundError, rateLimitedError, scopeRefusal, type ActOutcome, type KeyAct } from "./key-act";

export const LEDGER_PER_PAGE = 100;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const isoSchema = z.iso.datetime();

export const accountSchema = z.object({
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

export const ledgerRowSchema = z.object({
  id: z.int(),
  at: isoSchema,
  request_id: z.string().nullable(),
  kind: z
    .enum(["monthly_grant", "plan_credit", "pack_credit", "charge", "refund", "expiry"])
    .describe(
      "`refund`: a request that ended in an error after it was charged gets its charges back (positive deltas, the " +
        "charge's request id, key and product)",
    ),
  plan_delta: z.int(),
  pack_delta: z.int(),
  plan_balance: z.int(),
  pack_balance: z.int(),
  key_id: z.string().nullable(),
  note: z.string().nullable(),
  product: z
    .string()
    .nullable()
    .describe(
      "The product a `charge` paid for (e.g. `email`), or a `refund` gave back; null for grants, purchases and " +
        "expiries, and for charges recorded before the ledger named products",
    ),
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

type LedgerView = z.infer<typeof ledgerRowSchema>;

const ledgerView = (row: LedgerRow): LedgerView => ({
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
  product: row.product,
});

/**
 * `GET /account` and the `get_account` tool: the account and its balance, the balance read counting the request's rate
 * limit (one round trip to the account's object).
 */
export async function readAccount(act: KeyAct): Promise<ActOutcome<z.infer<typeof accountSchema>>> {
  const scope = scopeRefusal(act.principal, "account");
  if (scope) return scope;
  const { env, principal } = act;
  const [account, entered] = await Promise.all([
    accountFieldsOf(database(env), principal.accountId),
    accountEntry(env, principal.accountId, act.admission).snapshot(),
  ]);
  if ("limited" in entered) return rateLimitedError(entered.limited);
  if (!account) return notFoundError("Account");
  const snapshot = entered.value;
  return answered(accountView(account, snapshot), { credits_used: 0, credits_remaining: snapshot.available });
}

/** `GET /account/ledger` and the `get_ledger` tool: one page of credit movements, newest first. */
export async function readLedger(act: KeyAct, page: number): Promise<ActOutcome<{ entries: LedgerView[] }>> {
  const scope = scopeRefusal(act.principal, "account");
  if (scope) return scope;
  const entry = accountEntry(act.env, act.principal.accountId, act.admission);
  const entered = await entry.ledger(page, LEDGER_PER_PAGE);
  if ("limited" in entered) return rateLimitedError(entered.limited);
  const { rows, total } = entered.value;
  return answered({ entries: rows.map(ledgerView) }, { page, per_page: LEDGER_PER_PAGE, total });
}
