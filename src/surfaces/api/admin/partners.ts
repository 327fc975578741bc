import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../db/client";
import { ok } from "../../../http/envelope";
import { jsonBody } from "../../../http/validation";
import { partnerAllowance, setPartnerCeiling } from "../../../platform/partners/spend";
import type { AppEnv } from "../../../types";
import { accountParam, findAccount } from "./accounts";

const ceilingView = async (env: Env, accountId: string) => {
  const allowance = await partnerAllowance(env, accountId);
  return {
    account_id: accountId,
    daily_calls: allowance.dailyCalls,
    default: !allowance.own,
    today: { day: allowance.day, calls: allowance.today },
  };
};

/** An account's daily ceiling on partner calls (docs/partners.md, "Operational rules"), and today's count. */
export const adminPartnerRoutes = new Hono<AppEnv>()
  .get("/accounts/:accountId/partner-ceiling", accountParam, async (c) => {
    const { accountId } = c.req.valid("param");
    await findAccount(database(c.env), accountId);
    return ok(c, await ceilingView(c.env, accountId));
  })
  .put(
    "/accounts/:accountId/partner-ceiling",
    accountParam,
    jsonBody(z.object({ daily_calls: z.int().min(0).max(10_000_000).nullable() })),
    async (c) => {
      const { accountId } = c.req.valid("param");
      await findAccount(database(c.env), accountId);
      await setPartnerCeiling(c.env, accountId, c.req.valid("json").daily_calls);
      return ok(c, await ceilingView(c.env, accountId));
    },
  );
