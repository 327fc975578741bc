import { Hono } from "hono";
import { z } from "zod";
import { accountByEmail } from "../../../db/accounts";
import { accountKeys } from "../../../db/api-keys";
import { database } from "../../../db/client";
import { accountMembers, memberRole, userIdByEmail } from "../../../db/members";
import { issueSignInUrl } from "../../../engines/mail/sign-in";
import { ok } from "../../../http/envelope";
import { notFound, validationFailed } from "../../../http/errors";
import { jsonBody, pathParams, queryParams } from "../../../http/validation";
import type { AppEnv } from "../../../types";
import { accountParam, findAccount } from "./accounts";
import { keyView } from "./keys";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What the operator looks up (scripts/admin.mjs `find-account`, `list-keys`, `list-members`) and the sign-in link
 * `npm run dev` prints for the demo account.
 */
export const adminDirectoryRoutes = new Hono<AppEnv>()
  .get("/accounts", queryParams(z.object({ email: z.email().max(254) })), async (c) => {
    const account = await accountByEmail(database(c.env), c.req.valid("query").email.toLowerCase());
    if (!account) throw notFound("Account");
    return ok(c, {
      id: account.id,
      email: account.email,
      email_verified: account.emailVerified,
      created_at: iso(account.createdAt),
    });
  })
  .get("/accounts/:accountId/keys", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    await findAccount(db, accountId);
    return ok(c, { keys: (await accountKeys(db, accountId)).map(keyView) });
  })
  .get("/accounts/:accountId/members", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    const db = database(c.env);
    await findAccount(db, accountId);
    const members = await accountMembers(db, accountId);
    return ok(c, {
      members: members.map((m) => ({ user_id: m.userId, email: m.email, role: m.role, created_at: iso(m.createdAt) })),
    });
  })
  .post(
    "/accounts/:accountId/sign-in-link",
    pathParams(z.object({ accountId: z.string().max(64) })),
    jsonBody(z.object({ email: z.email().max(254) })),
    async (c) => {
      const { accountId } = c.req.valid("param");
      const email = c.req.valid("json").email.toLowerCase();
      const db = database(c.env);
      await findAccount(db, accountId);
      const userId = await userIdByEmail(db, email);
      if (!userId || !(await memberRole(db, accountId, userId)))
        throw validationFailed({ email: ["Not a member of this account."] });
      return ok(c, { url: await issueSignInUrl(c.env, accountId, email), expires_in_seconds: 900 }, {}, 201);
    },
  );
