import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { mintKey, newId } from "../../auth/keys";
import { creditsOf } from "../../billing/credits";
import { PLAN_NAMES } from "../../billing/plans";
import { forgetCachedKeys } from "../../db/keys";
import { database, type Database } from "../../db/client";
import { accounts, memberships, users } from "../../db/schema";
import { ok } from "../../http/envelope";
import { notFound, validationFailed } from "../../http/errors";
import { jsonBody, pathParams } from "../../http/validation";
import type { AppEnv } from "../../types";
import { accountView } from "../account";

export const accountParam = pathParams(z.object({ accountId: z.string().max(64) }));

export async function findAccount(db: Database, accountId: string) {
  const account = await db.select().from(accounts).where(eq(accounts.id, accountId)).get();
  if (!account) throw notFound("Account");
  return account;
}

async function view(env: Env, accountId: string) {
  const account = await findAccount(database(env), accountId);
  return accountView(account, await creditsOf(env, accountId).snapshot());
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
      if (await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email)).get()) {
        throw validationFailed({ email: ["An account with this email already exists."] });
      }
      const id = newId("acc");
      await db.insert(accounts).values({ id, email, emailVerified: body.email_verified, createdAt: Date.now() });
      await creditsOf(c.env, id).setPlan(body.plan);
      return ok(c, await view(c.env, id), {}, 201);
    },
  )
  .get("/accounts/:accountId", accountParam, async (c) => ok(c, await view(c.env, c.req.valid("param").accountId)))
  .post("/accounts/:accountId/verify-email", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    await findAccount(database(c.env), accountId);
    await database(c.env).update(accounts).set({ emailVerified: true }).where(eq(accounts.id, accountId));
    forgetCachedKeys();
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
      await creditsOf(c.env, accountId).addCredits(bucket, amount, note ?? null, c.var.requestId);
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
      await creditsOf(c.env, accountId).setPlan(c.req.valid("json").plan);
      return ok(c, await view(c.env, accountId));
    },
  )
  .post("/accounts/:accountId/members", accountParam, jsonBody(z.object({ email: z.email().max(254) })), async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    await findAccount(db, accountId);
    const email = c.req.valid("json").email.toLowerCase();
    const existing = await db.select().from(users).where(eq(users.email, email)).get();
    const userId = existing?.id ?? newId("usr");
    if (!existing) await db.insert(users).values({ id: userId, email, createdAt: Date.now() });
    await db.insert(memberships).values({ accountId, userId, createdAt: Date.now() }).onConflictDoNothing();
    return ok(c, { user_id: userId, email, account_id: accountId }, {}, 201);
  })
  .delete(
    "/accounts/:accountId/members/:userId",
    pathParams(z.object({ accountId: z.string().max(64), userId: z.string().max(64) })),
    async (c) => {
      const { accountId, userId } = c.req.valid("param");
      const removed = await database(c.env)
        .delete(memberships)
        .where(and(eq(memberships.accountId, accountId), eq(memberships.userId, userId)))
        .returning();
      if (removed.length === 0) throw notFound("Membership");
      forgetCachedKeys();
      return ok(c, { user_id: userId, account_id: accountId, removed: true });
    },
  )
  .post("/accounts/:accountId/feedback-key", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    await findAccount(db, accountId);
    const minted = await mintKey("feedback");
    await db.update(accounts).set({ feedbackKeyHash: minted.hash }).where(eq(accounts.id, accountId));
    return ok(c, { feedback_key: minted.key, hint: minted.hint }, {}, 201);
  });
