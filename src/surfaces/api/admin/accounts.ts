import { Hono } from "hono";
import { resumeWhenCreditsArrive } from "../../../engines/bulk/actions";
import { z } from "zod";
import { forgetAccountKeys, forgetMemberKeys } from "../../../auth/key-lookup";
import { mintKey } from "../../../auth/keys";
import { newId } from "../../../platform/tokens";
import { accountObject } from "../../../engines/credits/credits";
import { sendAccountConfirmation } from "../../../engines/mail/account-confirmation";
import { PLAN_NAMES } from "../../../engines/credits/plans";
import {
  accountById,
  accountEmailTaken,
  insertAccount,
  markEmailVerified,
  setFeedbackKeyHash,
  type Account,
} from "../../../db/accounts";
import { database, type Database } from "../../../db/client";
import { acceptMembership, addMemberWithRole, insertUser, removeMembership, userIdByEmail } from "../../../db/members";
import { ok } from "../../../http/envelope";
import { notFound, validationFailed } from "../../../http/errors";
import { jsonBody, pathParams } from "../../../http/validation";
import type { AppEnv } from "../../../types";
import { accountView } from "../../account-reads";

export const accountParam = pathParams(z.object({ accountId: z.string().max(64) }));

export async function findAccount(db: Database, accountId: string): Promise<Account> {
  const account = await accountById(db, accountId);
  if (!account) throw notFound("Account");
  return account;
}

async function view(env: Env, accountId: string) {
  const account = await findAccount(database(env), accountId);
  return accountView(account, await accountObject(env, accountId).snapshot());
}

/** Accounts, their plan and credits, members and feedback key. */
export const adminAccountRoutes = new Hono<AppEnv>()
  .post(
    "/accounts",
    jsonBody(
      z.object({
        email: z.email().max(254),
        email_verified: z.boolean().default(false),
        plan: z.enum(PLAN_NAMES).default("free"),
      }),
    ),
    async (c) => {
      const body = c.req.valid("json");
      const db = database(c.env);
      const email = body.email.toLowerCase();
      if (await accountEmailTaken(db, email)) {
        throw validationFailed({ email: ["An account with this email already exists."] });
      }
      const id = newId("acc");
      await insertAccount(db, { id, email, emailVerified: body.email_verified, createdAt: Date.now() });
      await accountObject(c.env, id).setPlan(body.plan);
      // An unconfirmed account is mailed its confirmation link at once (docs/mail.md).
      if (!body.email_verified) await sendAccountConfirmation(c.env, id, email);
      return ok(c, await view(c.env, id), {}, 201);
    },
  )
  .get("/accounts/:accountId", accountParam, async (c) => ok(c, await view(c.env, c.req.valid("param").accountId)))
  // The move of the account's lists from the old D1 layout into its object (run by its first use anyway): a re-run
  // copies only rows not there yet (docs/architecture.md "The account's lists").
  .post("/accounts/:accountId/lists/import", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    await findAccount(database(c.env), accountId);
    return ok(c, { imported: await accountObject(c.env, accountId).importLists() });
  })
  .post("/accounts/:accountId/confirmation-email", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    const account = await findAccount(database(c.env), accountId);
    if (account.emailVerified) throw validationFailed({ account: ["The account's email is already confirmed."] });
    return ok(c, { message_id: await sendAccountConfirmation(c.env, accountId, account.email) }, {}, 201);
  })
  .post("/accounts/:accountId/verify-email", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    await findAccount(database(c.env), accountId);
    await markEmailVerified(database(c.env), accountId);
    forgetAccountKeys(accountId);
    return ok(c, await view(c.env, accountId));
  })
  .post(
    "/accounts/:accountId/credits",
    accountParam,
    jsonBody(
      z.object({
        bucket: z.enum(["plan", "pack"]),
        amount: z.int().min(1).max(100_000_000),
        note: z.string().max(200).nullish(),
      }),
    ),
    async (c) => {
      const { accountId } = c.req.valid("param");
      const { bucket, amount, note } = c.req.valid("json");
      await findAccount(database(c.env), accountId);
      await accountObject(c.env, accountId).addCredits({
        bucket,
        amount,
        note: note ?? null,
        requestId: c.var.requestId,
      });
      await resumeWhenCreditsArrive(c.env, accountId);
      return ok(c, await view(c.env, accountId));
    },
  )
  .post(
    "/accounts/:accountId/plan",
    accountParam,
    jsonBody(z.object({ plan: z.enum([...PLAN_NAMES, "cancelled"]) })),
    async (c) => {
      const { accountId } = c.req.valid("param");
      await findAccount(database(c.env), accountId);
      await accountObject(c.env, accountId).setPlan(c.req.valid("json").plan);
      return ok(c, await view(c.env, accountId));
    },
  )
  .post("/accounts/:accountId/members", accountParam, jsonBody(z.object({ email: z.email().max(254) })), async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    const account = await findAccount(db, accountId);
    const email = c.req.valid("json").email.toLowerCase();
    const existingId = await userIdByEmail(db, email);
    const userId = existingId ?? newId("usr");
    if (existingId === undefined) await insertUser(db, { id: userId, email, createdAt: Date.now() });
    // Whoever holds the account's own address owns it (docs/dashboard.md#roles). The operator vouches for whoever it
    // adds: an accepted member at once (a pending invitation to the address is accepted).
    const now = Date.now();
    const role = email === account.email ? "owner" : "member";
    await addMemberWithRole(db, { accountId, userId, role, now, acceptedAt: now });
    await acceptMembership(db, accountId, userId, now);
    // A returning member's keys were remembered as "holder left"; they work again at once in this isolate.
    forgetMemberKeys(accountId, userId);
    return ok(c, { user_id: userId, email, account_id: accountId }, {}, 201);
  })
  .on(
    "DELETE",
    "/accounts/:accountId/members/:userId",
    pathParams(z.object({ accountId: z.string().max(64), userId: z.string().max(64) })),
    async (c) => {
      const { accountId, userId } = c.req.valid("param");
      if (!(await removeMembership(database(c.env), accountId, userId))) throw notFound("Membership");
      forgetMemberKeys(accountId, userId);
      return ok(c, { user_id: userId, account_id: accountId, removed: true });
    },
  )
  .post("/accounts/:accountId/feedback-key", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    await findAccount(db, accountId);
    const minted = await mintKey("feedback");
    await setFeedbackKeyHash(db, accountId, minted.hash);
    return ok(c, { feedback_key: minted.key, hint: minted.hint }, {}, 201);
  });
